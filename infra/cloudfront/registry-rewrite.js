// CloudFront Function (cloudfront-js-2.0, viewer request) on /api/registry/*.
// The registry is static JSON in the static bucket (docs/api.md §11): this maps the API path onto
// the object key, so registry reads never reach a Lambda.
//   /api/registry/<slug>          -> /registry/<slug>.json
//   /api/registry/<slug>/versions -> /registry/<slug>/versions.json
// Anything else under /api/registry/ cannot name a skill and is answered 404 at the edge.
// The mapping is core/static-paths.ts keyForPath (the local CDN); a test checks the two agree.
var REGISTRY_PATH = /^\/api\/registry\/([a-z0-9-]{1,64})(\/versions)?\/?$/;

function handler(event) {
  var request = event.request;
  var match = REGISTRY_PATH.exec(request.uri);
  if (!match) {
    return { statusCode: 404, statusDescription: 'Not Found', headers: { 'cache-control': { value: 'no-store' } } };
  }
  request.uri = match[2] ? '/registry/' + match[1] + '/versions.json' : '/registry/' + match[1] + '.json';
  request.querystring = {};
  return request;
}
