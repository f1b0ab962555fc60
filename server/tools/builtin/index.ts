import type { DesktopBridge } from '../../desktop.js';
import type { EventBus } from '../../events/bus.js';
import type { AnyTool } from '../types.js';
import { calculateTool } from './calculate.js';
import { createClipboardTool } from './clipboard.js';
import { getTimeTool } from './get-time.js';
import { jsonParseTool } from './json-parse.js';
import { createNotifyTool } from './notify.js';
import { textProcessTool } from './text-process.js';

export interface BuiltinDeps {
  events: EventBus;
  desktop: DesktopBridge | undefined;
}

/** Tools that ship with the gateway, one file each; those that touch the machine get what they need passed in. */
export function createBuiltinTools(deps: BuiltinDeps): AnyTool[] {
  return [
    calculateTool,
    jsonParseTool,
    textProcessTool,
    getTimeTool,
    createNotifyTool({ events: deps.events, desktop: deps.desktop }),
    createClipboardTool({ desktop: deps.desktop }),
  ] as AnyTool[];
}
