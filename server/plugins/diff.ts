import { isDeepStrictEqual } from 'node:util';
import type { DeclaredTool } from './protocol.js';

export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: { name: string; fields: { field: string; before: unknown; after: unknown }[] }[];
  permissions: { before: unknown; after: unknown } | null;
}

const FIELDS = ['description', 'parameters', 'risk', 'annotations', 'category', 'timeoutMs', 'cache'] as const;

/** What differs between the tools (and permissions) the owner accepted and the plugin's now. */
export function diffTools(before: DeclaredTool[], after: DeclaredTool[], permissionsBefore: unknown, permissionsAfter: unknown): ToolChanges {
  const old = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const changed: ToolChanges['changed'] = [];
  for (const [name, tool] of now) {
    const was = old.get(name);
    if (!was) continue;
    const fields = FIELDS.filter((f) => !isDeepStrictEqual(was[f], tool[f])).map((field) => ({ field, before: was[field] ?? null, after: tool[field] ?? null }));
    if (fields.length > 0) changed.push({ name, fields });
  }
  return {
    added: [...now.keys()].filter((n) => !old.has(n)),
    removed: [...old.keys()].filter((n) => !now.has(n)),
    changed,
    permissions: isDeepStrictEqual(permissionsBefore, permissionsAfter) ? null : { before: permissionsBefore, after: permissionsAfter },
  };
}
