import { sep } from 'node:path';

const PACKED = `${sep}app.asar${sep}`;
const UNPACKED = `${sep}app.asar.unpacked${sep}`;

/**
 * A file of this package as another process must open it. In the packaged desktop app the code lives in an
 * app.asar archive only this process can read; files a child process opens (the Python analysis program, a plugin
 * process's script) are shipped unpacked beside it (electron-builder.yml, asarUnpack). Elsewhere: the path as is.
 */
export function unpackedPath(path: string): string {
  return path.includes(PACKED) ? path.replace(PACKED, UNPACKED) : path;
}
