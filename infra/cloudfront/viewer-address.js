// CloudFront Function (cloudfront-js-2.0, viewer request) on /api/* and ClawHub's discovery file.
// API Gateway sees CloudFront's edge as the client, so distinct installs (docs/api.md §10.2)
// need the viewer's address from the edge: this writes it into x-skillpress-viewer, over any
// value the viewer sent. The API trusts the header only beside the origin's secret header, which
// CloudFront alone adds (functions/http/client.ts).
function handler(event) {
  var request = event.request;
  request.headers['x-skillpress-viewer'] = { value: event.viewer.ip };
  return request;
}
