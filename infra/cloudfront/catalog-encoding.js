// CloudFront Function (cloudfront-js-2.0, viewer request) on /.well-known/skills.json.
// The rebuild stores the whole catalog beside its brotli and gzip copies (skills.json.br,
// skills.json.gz, each with its Content-Encoding): CloudFront compresses nothing over 10 MB, and
// the catalog passes that near 30,000 skills. This picks the copy the viewer accepts, brotli
// first, as the local CDN does (scripts/local/cdn.ts); the rewritten path is the cache key, and
// the response headers policy adds Vary: Accept-Encoding.
function handler(event) {
  var request = event.request;
  var header = request.headers['accept-encoding'];
  var accepted = {};
  var parts = header ? header.value.toLowerCase().split(',') : [];
  var i;
  var j;
  var fields;
  var q;
  var match;
  for (i = 0; i < parts.length; i++) {
    fields = parts[i].split(';');
    q = 1;
    for (j = 1; j < fields.length; j++) {
      match = /^\s*q=([0-9.]+)\s*$/.exec(fields[j]);
      if (match) q = Number(match[1]);
    }
    accepted[fields[0].trim()] = q;
  }
  if (accepted.br > 0) request.uri = request.uri + '.br';
  else if (accepted.gzip > 0) request.uri = request.uri + '.gz';
  return request;
}
