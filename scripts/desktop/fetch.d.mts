// Types of fetch.mjs, for the TypeScript side (pincer doctor reads the remembered failure).
export declare const FETCH_TIMEOUT_MS: number;
export declare const FETCH_MARKER: string;
export declare const PROGRESS_EVERY_MS: number;
export declare function rememberedFailure(dataDir: string, version: string, env: NodeJS.ProcessEnv): { reason: string; at: string; file: string } | undefined;
export declare function fetchElectron(options: {
  electron: { dir: string; version: string };
  dataDir: string;
  binaryPresent: () => boolean;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  timeoutMs?: number;
  progressEveryMs?: number;
}): Promise<{ fetched: true } | { fetched: false; reason: string }>;
