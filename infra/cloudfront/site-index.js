// CloudFront Function (cloudfront-js-2.0, viewer request) on the site pages.
// The Astro site is built to folders of index.html files; an S3 origin behind origin access
// control has no index documents, so /dashboard/ and /dashboard are mapped to
// /dashboard/index.html here. Paths with an extension are files and pass unchanged.
function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.charAt(uri.length - 1) === '/') {
    request.uri = uri + 'index.html';
  } else if (uri.lastIndexOf('.') < uri.lastIndexOf('/')) {
    request.uri = uri + '/index.html';
  }
  return request;
}
