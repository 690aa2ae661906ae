import { table } from '../../cli/command-kit.js';
import type { ContractTestReport } from './runner.js';

/** The pass/fail table for people: one row per check (name, result, detail), then the totals. */
export function formatReport(report: ContractTestReport): string {
  const rows = [['CHECK', 'RESULT', 'DETAIL'], ...report.checks.map((check) => [check.name, check.result.toUpperCase(), check.detail.replace(/\s*\n\s*/g, ' ')])];
  const { pass, fail, skip } = report.counts;
  return [
    `contract test of ${report.baseUrl}`,
    '',
    table(rows),
    '',
    `${pass} passed, ${fail} failed, ${skip} skipped: ${report.ok ? 'OK' : 'FAILED'}`,
  ].join('\n');
}
