// `npm start` builds only what changed since the last build: the TypeScript (incrementally), the bundled assets and
// the dashboard, each skipped when its outputs are newer than its sources. `npm run build` stays the full build.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Where the incremental compiler keeps what it knows, and the mark of the last build `npm start` made. */
export const CACHE_DIR = join('node_modules', '.cache', 'pincer');
const BUILD_INFO = 'tsconfig.build.tsbuildinfo';
const STAMP = 'start-build';

/**
 * The newest file under `paths` (files or folders, relative to root), skipping node_modules and dist.
 * @param {string} root
 * @param {string[]} paths
 * @returns {{ file: string, mtimeMs: number } | undefined}
 */
export function newest(root, paths) {
  /** @type {{ file: string, mtimeMs: number } | undefined} */
  let best;
  /** @param {string} path */
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules' && name !== 'dist') visit(join(path, name));
    } else if (!best || stat.mtimeMs > best.mtimeMs) {
      best = { file: relative(root, path), mtimeMs: stat.mtimeMs };
    }
  };
  for (const path of paths) visit(join(root, path));
  return best;
}

/** @param {string} file */
function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * What needs building, each with the reason (a file newer than the build, or a missing output); undefined: current.
 * @param {string} root
 * @returns {{ compile: string | undefined, assets: string | undefined, dashboard: string | undefined }}
 */
export function buildPlan(root) {
  const cli = join(root, 'dist', 'server', 'cli.js');
  const compiledAt = Math.max(mtime(cli) ?? 0, mtime(join(root, CACHE_DIR, STAMP)) ?? 0);
  const stale = (/** @type {string[]} */ sources, /** @type {number | undefined} */ builtAt, /** @type {string} */ output) => {
    if (builtAt === undefined) return `${output} is missing`;
    const changed = newest(root, sources);
    return changed && changed.mtimeMs > builtAt ? `${changed.file} changed` : undefined;
  };
  const compile = existsSync(cli)
    ? stale(['server', 'electron', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package.json'], compiledAt, 'dist/server/cli.js')
    : 'dist/server/cli.js is missing';
  const assets = !existsSync(join(root, 'scripts', 'plugin-hashes.mjs')) ? undefined : compile ?? stale(['plugins', join('server', 'security', 'python-analyzer.py')], mtime(join(root, 'dist', 'server', 'bundled-plugins.json')), 'dist/server/bundled-plugins.json');
  const dashboard = existsSync(join(root, 'renderer'))
    ? stale(['renderer', join('server', 'contract')], mtime(join(root, 'dist', 'renderer', 'index.html')), 'dist/renderer/index.html')
    : undefined;
  return { compile, assets, dashboard };
}

/**
 * Builds what buildPlan names, in the package at `root`, with the tools installed in `tools` (normally the same
 * folder). Returns false (after saying what failed) when a step fails.
 * @param {{ root: string, tools?: string, log?: (line: string) => void }} options
 * @returns {boolean}
 */
export function buildWhatChanged({ root, tools = root, log = console.log }) {
  const plan = buildPlan(root);
  if (!plan.compile && !plan.assets && !plan.dashboard) {
    log('Pincer: the build is up to date.');
    return true;
  }
  const cache = join(root, CACHE_DIR);
  mkdirSync(cache, { recursive: true });
  /** @param {string} what @param {string[]} args */
  const run = (what, args) => {
    const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (result.status === 0) return true;
    log(`Pincer: ${what} failed (exit ${result.status ?? result.signal}); fix the error above, or run "npm run build" for a full build.`);
    return false;
  };
  if (plan.compile) {
    log(`Pincer: compiling what changed (${plan.compile})…`);
    const info = join(cache, BUILD_INFO);
    // The compiler's record says what it emitted, not whether the files are still there: without the output it
    // would emit nothing.
    if (!existsSync(join(root, 'dist', 'server', 'cli.js'))) rmSync(info, { force: true });
    const tsc = join(tools, 'node_modules', 'typescript', 'bin', 'tsc');
    if (!run('compiling', [tsc, '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', info])) return false;
    writeFileSync(join(cache, STAMP), `${new Date().toISOString()}\n`);
  }
  if (plan.assets) {
    const analyzer = join('server', 'security', 'python-analyzer.py');
    if (existsSync(join(root, analyzer))) {
      mkdirSync(join(root, 'dist', 'server', 'security'), { recursive: true });
      copyFileSync(join(root, analyzer), join(root, 'dist', analyzer));
    }
    if (!run('recording the bundled plugins', [join('scripts', 'plugin-hashes.mjs')])) return false;
  }
  if (plan.dashboard) {
    log(`Pincer: building the dashboard (${plan.dashboard})…`);
    const vite = join(tools, 'node_modules', 'vite', 'bin', 'vite.js');
    if (!run('building the dashboard', [vite, 'build', '--config', join('renderer', 'vite.config.ts'), '--logLevel', 'warn'])) return false;
  }
  return true;
}
