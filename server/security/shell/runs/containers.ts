import { posix } from 'node:path';
import { scanOptions, type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { chdirs, firstOperand, Found, type Handler, optionValues, upFrom, type Values } from './found.js';

/** Containers and local CI: the Dockerfile and compose files a build or `up` reads, act's workflows. */

function docker(found: Found, base: string, args: readonly Word[], values: Values): void {
  const at = firstOperand(values, { short: 'Hc', long: ['host', 'context', 'config', 'log-level'] });
  let sub = at === -1 ? undefined : values[at];
  let rest = args.slice(at + 1);
  if ((sub === 'buildx' || sub === 'image' || sub === 'builder') && rest[0]?.value === 'build') {
    sub = 'build';
    rest = rest.slice(1);
  }
  if (sub === 'build') {
    const grammar: OptionGrammar = { short: 'ftm', long: ['file', 'tag', 'build-arg', 'target', 'platform', 'label', 'secret', 'ssh', 'cache-from', 'cache-to', 'output', 'network', 'memory', 'progress', 'iidfile', 'build-context', 'add-host', 'shm-size', 'ulimit', 'isolation', 'cgroup-parent', 'metadata-file', 'builder', 'attest', 'annotation', 'allow'] };
    const { options, positionals } = scanOptions(rest, grammar);
    const context = positionals[positionals.length - 1]?.value ?? '.';
    if (/^[a-z]+:\/\/|^git@|^-$/.test(context)) return;
    const dir = found.at(base, context);
    const by = new Found(`${found.by} build`, found.home);
    const files = options.filter((o) => o.flag === '-f' || o.flag === '--file').map((o) => o.value?.value).filter((v): v is string => v !== undefined);
    if (files.length > 0) for (const file of files) by.file(by.at(base, file));
    else by.names(dir, ['Dockerfile', 'Containerfile', 'dockerfile']);
    by.names(dir, ['.dockerignore']);
    found.take(by);
  } else if (sub === 'compose') {
    compose(found, base, rest, rest.map((w) => w.value), `${found.by} compose`);
  }
}

const COMPOSE: OptionGrammar = { short: 'fp', long: ['file', 'project-name', 'project-directory', 'profile', 'env-file', 'ansi', 'parallel', 'progress'] };

function compose(found: Found, base: string, args: readonly Word[], values: Values, label = 'docker-compose'): void {
  const at = firstOperand(values, COMPOSE);
  const sub = at === -1 ? undefined : values[at];
  if (sub === undefined || ['ps', 'ls', 'logs', 'config', 'version', 'images', 'top', 'port', 'events'].includes(sub)) return;
  const by = new Found(`${label} ${sub}`, found.home);
  const dir = chdirs(by, base, optionValues(args, COMPOSE, ['--project-directory']));
  const files = optionValues(args, COMPOSE, ['-f', '--file']);
  if (files.length > 0) for (const file of files) by.file(by.at(base, file));
  else {
    for (const folder of upFrom(dir)) {
      by.names(folder, ['compose.yaml', 'compose.yml', 'docker-compose.yml', 'docker-compose.yaml', 'compose.override.yaml', 'compose.override.yml', 'docker-compose.override.yml', 'docker-compose.override.yaml']);
    }
  }
  by.tree(dir, ['Dockerfile', 'Containerfile', '*.Dockerfile', 'Dockerfile.*']);
  found.take(by);
}

const ACT: OptionGrammar = { short: 'WCejsPa', long: ['workflows', 'directory', 'eventpath', 'job', 'secret', 'secret-file', 'var-file', 'env-file', 'platform', 'actor', 'input', 'input-file', 'container-options', 'env'] };

function act(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, ACT, ['-C', '--directory']));
  const workflows = optionValues(args, ACT, ['-W', '--workflows']);
  if (workflows.length > 0) for (const path of workflows) found.tree(found.at(dir, path));
  else found.tree(posix.join(dir, '.github/workflows'));
  found.tree(posix.join(dir, '.github/actions'));
  found.names(dir, ['.actrc']);
  found.file(found.at(dir, '~/.actrc'));
}

export const CONTAINER_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['docker', docker],
  ['podman', docker],
  ['docker-compose', (found, base, args, values) => compose(found, base, args, values)],
  ['podman-compose', (found, base, args, values) => compose(found, base, args, values, 'podman-compose')],
  ['act', act],
];
