import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { configFrom, failed, ownerRequest, parse, rootsLine, UsageError, type Out } from './common.js';

const USAGE = 'pincer roots [list] [--json] | roots add <DIR> | roots remove <DIR>';

/**
 * `pincer roots`: the folders file tools and run_shell may touch. It acts as the owner through PATCH /settings, on
 * the running gateway (which puts the change to use at once) or on one started for the command; either way the
 * list is saved to config.json, checked as the dashboard's Settings check it.
 */
export async function roots(args: string[], out: Out): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } });
  const [action = 'list', dir, ...extra] = positionals;
  const config = configFrom(values);
  // A gateway started for this command must not take the working folder as its root: what is listed and saved is
  // what the owner configured, not where this command happens to run.
  if (config.sources.roots === undefined) config.roots = [];
  if (action === 'list' && dir === undefined) {
    const current = await currentRoots(config, out);
    if (current === undefined) return 1;
    if (values.json) out.log(JSON.stringify({ roots: current }, null, 2));
    else out.log(rootsLine({ roots: current }));
    return 0;
  }
  if ((action !== 'add' && action !== 'remove') || !dir || extra.length > 0 || values.json) throw new UsageError(`usage: ${USAGE}`);
  // The CLI runs on the gateway's machine: a folder may be given relative to where the command runs.
  const folder = resolve(dir);
  const current = await currentRoots(config, out);
  if (current === undefined) return 1;
  const same = (root: string) => root === folder || real(root) === real(folder);
  let next: string[];
  if (action === 'add') {
    if (current.some(same)) {
      out.log(`${folder} is already shared. ${rootsLine({ roots: current })}`);
      return 0;
    }
    next = [...current, folder];
  } else {
    if (!current.some(same)) {
      out.error(`pincer: ${folder} is not shared. ${rootsLine({ roots: current })}`);
      return 1;
    }
    next = current.filter((root) => !same(root));
  }
  const { status, json } = await ownerRequest(config, 'PATCH', '/settings', { roots: next });
  if (status !== 200) return failed(json, out);
  out.log(`${action === 'add' ? `Shared ${folder}` : `Stopped sharing ${folder}`}. ${rootsLine({ roots: (json as { roots: string[] }).roots })}`);
  return 0;
}

async function currentRoots(config: ReturnType<typeof configFrom>, out: Out): Promise<string[] | undefined> {
  const { status, json } = await ownerRequest(config, 'GET', '/settings');
  if (status !== 200) {
    failed(json, out);
    return undefined;
  }
  return (json as { roots: string[] }).roots;
}

function real(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
