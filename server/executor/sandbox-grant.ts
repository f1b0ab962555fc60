import type { Subject } from '../decision.js';
import type { SandboxGrant } from '../tools/types.js';

/** What an allowed call of a sandboxed tool may reach: the paths, network and reach its analyzer found. */
export function grantFor(subject: Subject | undefined): SandboxGrant {
  const outside = subject?.outside ?? [];
  return {
    reads: outside.filter((p) => p.access === 'read').map((p) => p.path),
    writes: outside.filter((p) => p.access === 'write').map((p) => p.path),
    network: subject?.network === true,
    unsandboxed: subject?.reach === 'unknown',
  };
}

/** For the approval card: how the call will run if the owner allows it. */
export function sandboxNote(subject: Subject | undefined, available: boolean): string {
  if (!available) return 'There is no OS sandbox on this machine: if you allow it, only your approval stands between it and the machine.';
  const grant = grantFor(subject);
  if (grant.unsandboxed) {
    return 'If you allow it, it runs outside the sandbox: what it will read, write or connect to cannot be told from the command.';
  }
  const extra = [
    ...(grant.reads.length ? [`read ${grant.reads.join(', ')}`] : []),
    ...(grant.writes.length ? [`write ${grant.writes.join(', ')}`] : []),
    ...(grant.network ? ['use the network'] : []),
  ];
  return extra.length
    ? `If you allow it, it runs in the sandbox, which then also lets it ${extra.join('; ')}.`
    : 'If you allow it, it runs in the sandbox: the allowed folders only, no network.';
}
