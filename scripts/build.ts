// `npm run build`: the Lambda bundles and the site are added by their issues; nothing to build yet.
console.log('nothing to build yet');
