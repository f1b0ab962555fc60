// Types of electron-native.mjs, for the TypeScript tests.
export declare function dropNodedir(env: NodeJS.ProcessEnv): string[];
export declare function keepIfAbiMatches(addon: string, abi: string): string | undefined;
export declare function buildForElectron(options?: { root?: string; log?: (line: string) => void }): Promise<void>;
export declare function prepare(options?: { require?: boolean; root?: string; env?: NodeJS.ProcessEnv; log?: (line: string) => void }): Promise<number>;
