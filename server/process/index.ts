/**
 * Starting child processes (the pipeline's "run" step, docs/architecture.md: timeout, AbortSignal, output caps). A low
 * layer: nothing here imports tools, policy, HTTP, the executor or the store; the gateway hands it the data directory's
 * ledger.
 */
export { DEFAULT_INHERITED, DESKTOP_SESSION, scrubbedEnvironment, type EnvironmentOptions, type InheritedVariable } from './environment.js';
export { stoppedByMemoryLimit, withLimits, type ProcessLimits } from './limits.js';
export { describeLeftover, ProcessLedger, type LedgerRecord, type Leftover } from './ledger.js';
export { OutputBuffer, type KeepPolicy } from './output-buffer.js';
export {
  ProcessRunner,
  type ChildHandle,
  type LaunchOptions,
  type ProcessRunnerOptions,
  type RunOptions,
  type RunResult,
  type SandboxWrapper,
  type StartOptions,
} from './runner.js';

import { ProcessRunner } from './runner.js';

let shared: ProcessRunner | undefined;

/**
 * A runner without a ledger, for parts built outside a gateway (tests, a tool created on its own). A gateway passes
 * its own runner to everything it builds, so its runs are recorded and stopped with it.
 */
export function defaultRunner(): ProcessRunner {
  shared ??= new ProcessRunner();
  return shared;
}
