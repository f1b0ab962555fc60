// Types of electron.mjs, for the TypeScript tests (the scripts are plain JavaScript: no build step before `npm start`).
export declare const ROOT: string;
export declare const NATIVE_DIR_NAME: string;
export declare const SQLITE_ADDON_NAME: string;
export declare const NATIVE_STAMP_NAME: string;
export declare const MAIN_ENTRY: string;
export interface ElectronPackage {
  dir: string;
  version: string;
  abi: string;
}
export interface NativeStamp {
  electron: string;
  abi: string;
  betterSqlite3: string;
  platform: string;
  arch: string;
}
export declare function electronPackage(root?: string): ElectronPackage | undefined;
export declare function readAbi(file: string): string;
export declare function electronBinary(electronDir: string, env: NodeJS.ProcessEnv, platform?: NodeJS.Platform): { path: string; present: boolean };
export declare function exportsModuleAbi(file: string, abi: string): boolean;
export declare function moduleAbis(file: string): string[];
export declare function wantedStamp(electron: ElectronPackage, root?: string): NativeStamp;
export declare function nativeBuildProblem(nativeDir: string, wanted: NativeStamp): string | undefined;
