import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approvalForClient, reasonForClient } from '../../../server/approvals/client-view.js';
import type { Approval, Provenance } from '../../../server/contract/approvals.js';
import { ask } from '../../../server/decision.js';
import { describeProvenance } from '../../../server/policy/provenance.js';
import { RuleBook, withoutRuleNames } from '../../../server/policy/rules.js';
import { openStore } from '../../../server/store/index.js';
import { tempDir } from '../../helpers/gateway.js';

/**
 * What a client reads of the files other clients wrote, in the policy's own wording: the reasons are built here by
 * the functions that build them for real, so a change of wording that would let a name through fails here.
 */

const NOW = Date.parse('2026-12-01T12:00:00Z');
const entry = (client: string, callId: string, path = '/p/Makefile'): Provenance => ({
  path,
  by: 'make',
  client,
  tool: 'file_write',
  call_id: callId,
  at: new Date(NOW - 3 * 60_000).toISOString(),
});
const bobs = entry('bob', 'c_bob1');
const alices = entry('alice', 'c_alice1', '/p/rules.mk');

describe('reasonForClient', () => {
  it("leaves out other clients' names and calls in the provenance wording, and keeps the viewer's own", () => {
    const reason = describeProvenance([bobs, alices], NOW);
    expect(reason).toContain('client "bob"');
    const shown = reasonForClient(reason, 'alice');
    expect(shown).toBe(
      'make runs /p/Makefile, written by another client 3 min ago (file_write). ' +
        'make runs /p/rules.mk, written by client "alice" 3 min ago (file_write, call c_alice1).',
    );
    // The owner's wording is untouched for the writer itself.
    expect(reasonForClient(describeProvenance([bobs], NOW), 'bob')).toBe(describeProvenance([bobs], NOW));
  });

  it("and in a rule's: a grant made before another client's write", async () => {
    const dir = tempDir('pincer-client-view-');
    const store = openStore(join(dir, 'pincer.db'));
    try {
      const book = new RuleBook(store);
      book.add({ effect: 'allow', tool: 'run_shell', scope: 'prefix', pattern: 'make' }, 'owner', NOW - 60 * 60_000);
      const decided = await book.apply('run_shell', { command: 'make' }, { ...ask('shell:runs-code', 'make runs code.'), subject: { command: 'make', path: '/p', provenance: [bobs] } });
      expect(decided.reason).toMatch(/Your rule "allow run_shell commands starting with make" \(r_[0-9a-f-]+\) would allow it, but client "bob" wrote/);
      expect(withoutRuleNames(reasonForClient(decided.reason, 'alice'))).toBe(
        "make runs code. One of the owner's rules would allow it, but another client wrote /p/Makefile after that rule was made.",
      );
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('approvalForClient', () => {
  const card = { id: 'a_1', reason: describeProvenance([bobs, alices], NOW), provenance: [bobs, alices] } as Approval;

  it("keeps that another client wrote a file, not which client nor its call; the viewer's own entries stay whole", () => {
    const shown = approvalForClient(card, 'alice');
    expect(shown.provenance).toEqual([
      { path: '/p/Makefile', by: 'make', client: 'another client', tool: 'file_write', at: bobs.at },
      alices,
    ]);
    expect(JSON.stringify(shown)).not.toContain('bob');
    // The card it came from is not changed: the owner's stays whole.
    expect(card.provenance).toEqual([bobs, alices]);
  });

  it('answers the same card when only the viewer wrote what it runs', () => {
    const own = { ...card, provenance: [alices] } as Approval;
    expect(approvalForClient(own, 'alice')).toBe(own);
  });
});
