// Types of build.mjs, for the TypeScript tests.
export declare const CACHE_DIR: string;
export declare function newest(root: string, paths: string[]): { file: string; mtimeMs: number } | undefined;
export declare function buildPlan(root: string): { compile: string | undefined; assets: string | undefined; dashboard: string | undefined };
export declare function buildWhatChanged(options: { root: string; tools?: string; log?: (line: string) => void }): boolean;
