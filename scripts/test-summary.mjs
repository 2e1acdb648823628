// Prints the plain closing line CI reads ("Tests: N passed, N failed, N skipped") from vitest's
// JSON report, and fails when no test ran at all.
import { readFileSync } from 'node:fs';

let report;
try {
  report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
} catch {
  console.log('Tests: 0 passed, 0 failed');
  console.error('no test report: no test ran');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed + failed === 0) {
  console.error('no test ran');
  process.exit(1);
}
process.exit(failed > 0 || report.success === false ? 1 : 0);
