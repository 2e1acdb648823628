/**
 * The ecosystem's vocabulary: words and abbreviations people type for the same thing, which a
 * skill's text may spell another way (a query for "excel" should find the skill that "edits
 * .xlsx spreadsheets"). Each group is a set of words or phrases that mean the same; a query word
 * or phrase in a group also searches for the others. Kept small and curated: a synonym that is
 * only sometimes right costs more than it finds.
 */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['excel', 'xlsx', 'spreadsheet', 'xls'],
  ['powerpoint', 'pptx', 'slides', 'slide deck', 'presentation'],
  ['word document', 'docx', 'word doc', 'ms word'],
  ['pdf', 'acrobat'],
  ['tdd', 'test driven development', 'test-driven development', 'test first'],
  ['pr', 'pull request', 'merge request'],
  ['k8s', 'kubernetes'],
  ['js', 'javascript'],
  ['ts', 'typescript'],
  ['py', 'python'],
  ['db', 'database'],
  ['postgres', 'postgresql'],
  ['ci', 'continuous integration'],
  ['e2e', 'end to end', 'end-to-end'],
  ['mcp', 'model context protocol'],
  ['llm', 'large language model'],
  ['ml', 'machine learning'],
  ['ui', 'user interface'],
  ['ux', 'user experience'],
  ['repo', 'repository'],
  ['auth', 'authentication'],
  ['cv', 'resume', 'curriculum vitae'],
  ['gif', 'animated image'],
  ['changelog', 'release notes'],
  ['docs', 'documentation'],
  ['gh', 'github'],
  ['yt', 'youtube'],
  ['email', 'e-mail', 'mail'],
  ['vuln', 'vulnerability'],
  ['sast', 'static analysis'],
  ['a11y', 'accessibility'],
  ['i18n', 'internationalization', 'localization'],
  ['regex', 'regular expression'],
  ['cli', 'command line', 'terminal'],
  ['png', 'image', 'jpeg', 'jpg'],
  ['performance', 'perf', 'faster', 'speed up', 'slow'],
  ['website', 'web site', 'site', 'webpage', 'web page'],
];
