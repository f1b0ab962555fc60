// Types of plan.mjs, for the TypeScript tests.
export interface DesktopFacts {
  platform: NodeJS.Platform;
  electronInstalled: boolean;
  electron: string | undefined;
  display: boolean;
  nativeProblem: string | undefined;
  mainBuilt: boolean;
}
export type DesktopPlan = { launch: true; electron: string } | { launch: false; reason: string };
export declare function desktopPlan(facts: DesktopFacts): DesktopPlan;
export declare function hasDisplay(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean;
export declare function desktopFacts(where?: { root?: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): DesktopFacts;
