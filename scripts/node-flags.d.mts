// Types of node-flags.mjs, for the TypeScript tests and the benchmark.
export declare function gatewayNodeFlags(root: string): string[];
