import type { ChildProcess } from 'node:child_process';

/**
 * Kills a child started with `detached: true` and everything in its process group, so a timeout leaves nothing
 * running behind it (a `sleep` in the background, a forked worker). Quiet when the group is already gone.
 */
export function killProcessGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    // the group is already empty
  }
}
