// Types of fuses.mjs, for the TypeScript tests.
import type { FuseV1Config } from '@electron/fuses';
export interface PackContext {
  appOutDir: string;
  electronPlatformName: string;
  packager: { executableName: string; appInfo: { productFilename: string } };
}
export declare const FUSES: FuseV1Config & { strictlyRequireAllFuses: true };
export declare function electronExecutable(context: PackContext): string;
export declare function resourcesDir(context: PackContext): string;
export declare function checkPackagedAddon(context: PackContext, built: { abi: string; builtOn?: string }): void;
export declare function pointBundledPluginsAtApi(context: PackContext): void;
export declare function afterPack(context: PackContext, built?: { abi?: string; builtOn?: string }): Promise<void>;
export default afterPack;
