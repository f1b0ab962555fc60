import { posix } from 'node:path';
import { scanOptions, type OptionGrammar } from '../options.js';
import type { Word } from '../words.js';
import { chdirs, Found, type Handler, optionValues, upFrom } from './found.js';

/** Build tools and task runners: the Makefile, build.gradle, pom.xml… they run recipes from. */

const MAKE: OptionGrammar = {
  short: 'CfIoW',
  long: ['directory', 'file', 'makefile', 'include-dir', 'old-file', 'assume-old', 'what-if', 'new-file', 'assume-new'],
};

function make(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, MAKE, ['-C', '--directory']));
  const files = optionValues(args, MAKE, ['-f', '--file', '--makefile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  else found.names(dir, ['GNUmakefile', 'makefile', 'Makefile']);
}

const NINJA: OptionGrammar = { short: 'Cfjkldt', long: [] };

function ninja(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, NINJA, ['-C']));
  const files = optionValues(args, NINJA, ['-f']);
  found.names(dir, files.length > 0 ? files : ['build.ninja']);
}

const CMAKE: OptionGrammar = { short: 'SBCDGTAPUj', long: ['build', 'preset', 'install', 'toolchain'] };

function cmake(found: Found, base: string, args: readonly Word[]): void {
  const { options, positionals } = scanOptions(args, CMAKE);
  const value = (flag: string) => options.find((o) => o.flag === flag)?.value?.value;
  const script = value('-P');
  if (script !== undefined) {
    found.file(found.at(base, script));
    return;
  }
  if (options.some((o) => o.flag === '--build' || o.flag === '--install')) return; // runs what configure generated
  const source = value('-S') ?? positionals[0]?.value ?? '.';
  found.tree(found.at(base, source), ['CMakeLists.txt', '*.cmake', 'CMakePresets.json', 'CMakeUserPresets.json']);
  const cache = value('-C');
  if (cache !== undefined) found.file(found.at(base, cache));
  const toolchain = options.find((o) => o.flag === '--toolchain')?.value?.value;
  if (toolchain !== undefined) found.file(found.at(base, toolchain));
}

const JUST: OptionGrammar = { short: 'fd', long: ['justfile', 'working-directory', 'set', 'shell', 'shell-arg', 'dotenv-filename', 'dotenv-path'] };

function just(found: Found, base: string, args: readonly Word[]): void {
  const files = optionValues(args, JUST, ['-f', '--justfile']);
  if (files.length > 0) for (const file of files) found.file(found.at(base, file));
  else found.upwards(base, ['justfile', 'Justfile', '.justfile', 'JUSTFILE']);
}

const RAKE: OptionGrammar = { short: 'fCIrRe', long: ['rakefile', 'directory', 'libdir', 'require', 'rakelibdir', 'execute'] };

function rake(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, RAKE, ['-C', '--directory']));
  const files = optionValues(args, RAKE, ['-f', '--rakefile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  for (const folder of upFrom(dir)) {
    if (files.length === 0) found.names(folder, ['Rakefile', 'rakefile', 'Rakefile.rb', 'rakefile.rb']);
    found.tree(posix.join(folder, 'rakelib'), ['*.rake']);
  }
}

const TASK: OptionGrammar = { short: 'td', long: ['taskfile', 'dir'] };

function task(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, TASK, ['-d', '--dir']));
  const files = optionValues(args, TASK, ['-t', '--taskfile']);
  if (files.length > 0) for (const file of files) found.file(found.at(dir, file));
  else found.upwards(dir, ['Taskfile.yml', 'Taskfile.yaml', 'taskfile.yml', 'taskfile.yaml', 'Taskfile.dist.yml', 'Taskfile.dist.yaml']);
}

const GRADLE: OptionGrammar = { short: 'bcpIx', long: ['build-file', 'settings-file', 'project-dir', 'init-script', 'exclude-task'] };

function gradle(found: Found, base: string, args: readonly Word[]): void {
  const dir = chdirs(found, base, optionValues(args, GRADLE, ['-p', '--project-dir']));
  for (const file of optionValues(args, GRADLE, ['-b', '--build-file', '-c', '--settings-file', '-I', '--init-script'])) {
    found.file(found.at(dir, file));
  }
  found.names(dir, ['build.gradle', 'build.gradle.kts']);
  found.tree(posix.join(dir, 'buildSrc'));
  for (const folder of upFrom(dir)) {
    found.names(folder, ['settings.gradle', 'settings.gradle.kts', 'gradle.properties', 'gradlew']);
    found.tree(posix.join(folder, 'gradle'));
  }
}

const MAVEN: OptionGrammar = { short: 'fsDPlt', long: ['file', 'settings', 'global-settings', 'activate-profiles', 'log-file', 'toolchains'] };

function maven(found: Found, base: string, args: readonly Word[]): void {
  const file = optionValues(args, MAVEN, ['-f', '--file'])[0];
  const pom = file === undefined ? posix.join(base, 'pom.xml') : found.at(base, file);
  const dir = pom.endsWith('.xml') ? posix.dirname(pom) : pom;
  found.file(pom.endsWith('.xml') ? pom : posix.join(pom, 'pom.xml'));
  for (const folder of upFrom(dir)) {
    found.names(folder, ['pom.xml', 'mvnw']);
    found.tree(posix.join(folder, '.mvn'));
  }
  for (const settings of optionValues(args, MAVEN, ['-s', '--settings'])) found.file(found.at(base, settings));
}

export const BUILD_TOOL_RUNS: ReadonlyArray<readonly [string, Handler]> = [
  ['make', make],
  ['gmake', make],
  ['bmake', make],
  ['ninja', ninja],
  ['cmake', cmake],
  ['just', just],
  ['rake', rake],
  ['task', task],
  ['gradle', gradle],
  ['gradlew', gradle],
  ['mvn', maven],
  ['mvnw', maven],
];
