/**
 * What every site path answers while a new store's first site build runs (the local runtime
 * only; on AWS the site is uploaded before the distribution serves anyone). The build takes
 * seconds, the API answers at once, and a JSON 404 at `/` made the service look broken: this
 * page says what is happening and reloads itself until the real page is there. No script and no
 * inline style, so the site's Content-Security-Policy allows it as it is.
 */
export const SITE_PENDING_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="2">
<meta name="robots" content="noindex">
<title>Skillpress: building the site</title>
</head>
<body>
<main>
<h1>Skillpress</h1>
<p>The catalog site is being built for the first time, which takes a few seconds on a new store. This page reloads itself until the site is there; if it stays, the server's log says why.</p>
<p>The registry answers already: <a href="/.well-known/skills.json">the catalog</a>, <a href="/api/health">its health</a> and <a href="/api/openapi.json">the API's OpenAPI document</a>.</p>
</main>
</body>
</html>
`;
