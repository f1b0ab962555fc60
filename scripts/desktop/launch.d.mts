// Types of launch.mjs, for the TypeScript tests.
import type { ChildProcess } from 'node:child_process';
export declare const SETTLE_MS: number;
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}
export type Started = { started: true; child: ChildProcess; exited: Promise<ExitStatus> };
export type NotStarted = { started: false; reason: string };
export declare function appEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export declare function launchElectron(options: {
  electron: string;
  appDir: string;
  args?: string[];
  /** V8 flags for the main process, passed as --js-flags. */
  jsFlags?: string[];
  env?: NodeJS.ProcessEnv;
  settleMs?: number;
  onSpawn?: (child: ChildProcess) => void;
}): Promise<Started | NotStarted>;
