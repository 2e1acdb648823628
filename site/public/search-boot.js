// Runs before the home page below it is laid out: a page opened with a search in its URL is laid
// out as a search at once, so nothing moves when the results arrive (see scripts/search.ts).
if (/[?&](q|category|price)=[^&]/.test(location.search)) document.documentElement.setAttribute('data-searching', '');
