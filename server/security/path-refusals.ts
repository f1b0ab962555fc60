import { deny, type PolicyDecision } from '../decision.js';

/**
 * The refusals of path-guard.ts, one per rule of its table: each says what was refused, why, and what to do
 * instead, so the model (or the owner reading an approval) can act on it.
 */

/** How the owner shares a folder, for every refusal that comes from having none. */
const NO_ROOTS_ADVICE =
  'Ask the owner to share a folder: the dashboard\'s Settings (Folders file tools may use), `pincer roots add DIR`, ' +
  'or PINCER_ROOTS / "roots" in config.json.';

export function invalid(reason: string): PolicyDecision {
  return deny('path:invalid', reason);
}

/** Security: with no folder shared, no path is inside one; the message says how the owner shares one. */
export function noRoots(described: string): PolicyDecision {
  return deny(
    'path:no-roots',
    `${described} cannot be used: no folder is shared with Pincer yet, so file tools and run_shell have nowhere to work. ` +
      `${NO_ROOTS_ADVICE}`,
  );
}

export function outsideRoots(roots: readonly string[], described: string, why?: string): PolicyDecision {
  if (roots.length === 0) return noRoots(described);
  return deny(
    'path:outside-roots',
    `${described} is outside the folders Pincer may use${why ? ` (${why})` : ''}. Allowed folders: ${roots.join(', ')}. ` +
      'Use a path inside one of them; to open another folder, the owner adds it to the roots (dashboard settings, "roots" in config.json, or PINCER_ROOTS).',
  );
}

export function homeShorthand(input: string, roots: readonly string[]): PolicyDecision {
  return deny(
    'path:home-shorthand',
    `"${printable(input)}" starts with "~", which Pincer does not expand. Give an absolute path inside one of the allowed folders ` +
      `(${roots.join(', ')}) or a path relative to the first one; for a file literally named "~…", write "./${printable(input)}".`,
  );
}

/** `inside`: the path is in the data folder; otherwise it is a folder that contains it. */
export function pincerData(described: string, inside: boolean): PolicyDecision {
  return deny(
    'path:pincer-data',
    `${described} is ${inside ? 'inside' : 'a folder that contains'} Pincer's own data folder ` +
      '(tokens, database, settings), which no tool may touch. Work on files in the project folders instead; the owner ' +
      'changes Pincer settings from the dashboard or the CLI.',
  );
}

/** `inside`: the path is in Pincer's code folder `code`; otherwise it is a folder that contains it. */
export function pincerCode(described: string, code: string, inside: boolean, access: 'write' | 'delete'): PolicyDecision {
  return deny(
    'path:pincer-code',
    `${described} is ${inside ? 'inside' : 'a folder that contains'} Pincer's own code (${code}), ` +
      `which no tool may ${access === 'write' ? 'write' : 'delete'}, even with approval: changed code would run as Pincer ` +
      'itself. Work on files in the project folders instead; the owner updates Pincer by installing a new version.',
  );
}

export function deleteRoot(described: string, resolved: string, root: string): PolicyDecision {
  return deny(
    'path:delete-root',
    `${described} is ${root === resolved ? 'an allowed root folder itself' : `a folder that contains the allowed root ${root}`}, ` +
      'and tools never delete a root. Delete the files inside it one by one, or ask the owner to do it by hand.',
  );
}

/** `escape` says what the folded form would do (see PathGuard's #foldedEscape). */
export function lookalike(input: string, characters: string, folded: string, escape: string, roots: readonly string[]): PolicyDecision {
  return deny(
    'path:lookalike',
    `"${printable(input)}" uses characters that look like path syntax (${characters}). Here they are ordinary characters in a name, ` +
      `but a program that normalises names (a synced folder, an archive tool, a Windows code-page conversion) turns ` +
      `the path into "${printable(folded)}", which ${escape}. Spell the path with plain "." and "/" and keep it inside ` +
      `the allowed folders (${roots.join(', ')}).`,
  );
}

export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

/** The path as the model gave it, plus the real path it leads to when that differs. */
export function describePath(given: string, resolved: string): string {
  const shown = printable(given);
  return resolved === given ? `"${shown}"` : `"${shown}" (resolves to ${printable(resolved)})`;
}
