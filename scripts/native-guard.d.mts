// Types of native-guard.mjs, for the TypeScript tests.
export interface Addon {
  name: string;
  probe: string;
}
export declare const ADDONS: Addon[];
export declare function probeAddon(addon: Addon, root?: string): string | undefined;
export declare function guardAddons(options?: { root?: string; addons?: Addon[]; log?: (line: string) => void }): number;
