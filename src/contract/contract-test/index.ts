export type { Check, CheckOutcome, CheckReport, CheckResult, ContractTestOptions } from './check.js';
export { formatReport } from './report.js';
export { defaultChecks, runContractTest, type ContractTestReport } from './runner.js';
