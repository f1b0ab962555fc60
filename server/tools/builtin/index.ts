import type { AnyTool } from '../types.js';
import { calculateTool } from './calculate.js';
import { getTimeTool } from './get-time.js';
import { jsonParseTool } from './json-parse.js';
import { textProcessTool } from './text-process.js';

/** Tools that ship with the gateway, one file each. */
export const BUILTIN_TOOLS: readonly AnyTool[] = [calculateTool, jsonParseTool, textProcessTool, getTimeTool] as AnyTool[];
