import { resolve } from 'node:path';
import type { PincerConfig } from '../config/config.js';
import { configFrom, failed, notAChoice, ownerRequest, parse, shorten, table, UsageError, type Out, type Parsed } from './common.js';
import { only, printJson, SCOPES, str } from './owner-options.js';
import { contentFrom, describeForm } from './questions.js';

/** `pincer approvals …`: the pending calls and questions, and the owner's answer to each. */

const APPROVALS_USAGE =
  'pincer approvals [list] [--json] | approvals allow <id> [--always [--scope S] [--pattern P]] | approvals deny <id> [--message "…"] | ' +
  'approvals accept <id> [--set field=value …] | approvals decline <id>';

/** A pending approval as GET /approvals lists it: a call to allow or deny, or an imported server's question. */
interface ApprovalRow {
  id: string;
  kind?: string;
  tool: string;
  client: string;
  rule: string;
  expires_at: string;
  arguments: unknown;
  provenance?: { path: string; by: string; client: string; tool: string; call_id: string; at: string; folder?: string }[];
  server?: string;
  message?: string | null;
  requested_schema?: Parameters<typeof describeForm>[0];
  prompt?: unknown;
}

/** One answer to one pending approval: `pincer approvals <action> <id>`. */
interface ApprovalAnswer {
  id: string;
  path: string;
  parsed: Parsed;
  config: PincerConfig;
  out: Out;
}

const APPROVAL_ACTIONS: Record<string, (answer: ApprovalAnswer) => Promise<number>> = {
  allow: allowCall,
  accept: acceptQuestion,
  decline: declineQuestion,
  deny: denyCall,
};

export async function approvals(args: string[], out: Out): Promise<number> {
  const parsed = parse(args, {
    json: { type: 'boolean' },
    always: { type: 'boolean' },
    scope: { type: 'string' },
    pattern: { type: 'string' },
    message: { type: 'string' },
    set: { type: 'string', multiple: true },
  });
  const [action = 'list', id, ...extra] = parsed.positionals;
  const config = configFrom(parsed.values);
  if (action === 'list' && id === undefined) return listApprovals(parsed, config, out);
  if (!id || extra.length > 0) throw new UsageError(`usage: ${APPROVALS_USAGE}`);
  // Own keys only: an action such as "toString" is a typo, not a method of the table.
  const answer = Object.hasOwn(APPROVAL_ACTIONS, action) ? APPROVAL_ACTIONS[action] : undefined;
  if (!answer) throw new UsageError(`usage: ${APPROVALS_USAGE}`);
  return answer({ id, path: `/approvals/${encodeURIComponent(id)}`, parsed, config, out });
}

async function listApprovals(parsed: Parsed, config: PincerConfig, out: Out): Promise<number> {
  only(parsed, ['json'], APPROVALS_USAGE);
  const { status, json } = await ownerRequest(config, 'GET', '/approvals');
  if (status !== 200) return failed(json, out);
  if (parsed.values.json) return printJson(json, out);
  const rows = (json as { approvals: ApprovalRow[] }).approvals;
  if (rows.length === 0) {
    out.log('No pending approvals.');
    return 0;
  }
  out.log(
    table(
      ['ID', 'TOOL', 'CLIENT', 'RULE', 'EXPIRES', 'ARGUMENTS'],
      rows.map((a) => [a.id, a.tool, a.client, a.rule, a.expires_at, shorten(a.kind === 'elicitation' || a.kind === 'sampling' ? String(a.message) : JSON.stringify(a.arguments ?? null), 60)]),
    ),
  );
  printQuestions(rows, out);
  printProvenance(rows, out);
  return 0;
}

/** An imported server's question is answered with a form: its fields, and how to answer. */
function printQuestions(rows: ApprovalRow[], out: Out): void {
  for (const a of rows) {
    if (a.kind === 'elicitation') {
      out.log(['', `${a.id}: the MCP server "${a.server}" asks (for ${a.client}'s call): ${a.message}`, ...describeForm(a.requested_schema ?? {}), `  answer: pincer approvals accept ${a.id} --set field=value …, or decline ${a.id}`].join('\n'));
    } else if (a.kind === 'sampling') {
      out.log(['', `${a.id}: the MCP server "${a.server}" wants the configured model to answer (for ${a.client}'s call):`, JSON.stringify(a.prompt, null, 2), `  answer: pincer approvals allow ${a.id}, or deny ${a.id}`].join('\n'));
    }
  }
}

/** What a command runs that a client wrote is the first thing to know before allowing it. */
function printProvenance(rows: ApprovalRow[], out: Out): void {
  const written = rows.flatMap((a) =>
    (a.provenance ?? []).map((p) => `${a.id} runs ${p.path} (${p.by}), ${p.folder ? `copied into ${p.folder}` : 'written'} by client ${p.client} at ${p.at} (${p.tool}, call ${p.call_id})`),
  );
  if (written.length > 0) out.log(['', 'Files a client wrote that these calls run:', ...written].join('\n'));
}

async function allowCall({ id, path, parsed, config, out }: ApprovalAnswer): Promise<number> {
  only(parsed, ['always', 'scope', 'pattern'], APPROVALS_USAGE);
  const { values } = parsed;
  const scope = str(values.scope);
  const given = str(values.pattern);
  // The CLI runs on the gateway's machine: a folder may be given relative to where the command runs.
  const pattern = given !== undefined && scope === 'folder' ? resolve(given) : given;
  if (!values.always && (scope !== undefined || pattern !== undefined)) throw new UsageError('--scope and --pattern go with --always');
  if (scope !== undefined && !(SCOPES as readonly string[]).includes(scope)) throw notAChoice('scope', scope, SCOPES);
  const body = values.always
    ? { decision: 'allow_always', ...(scope !== undefined && { scope }), ...(pattern !== undefined && { pattern }) }
    : { decision: 'allow_once' };
  const { status, json } = await ownerRequest(config, 'POST', path, body);
  if (status !== 200) return failed(json, out);
  const record = json as { tool: string; granted_rule: string | null };
  out.log(
    record.granted_rule
      ? `Allowed ${record.tool} (${id}); rule ${record.granted_rule} now always allows it (${scope ?? 'exact'}).`
      : `Allowed ${record.tool} once (${id}).`,
  );
  return 0;
}

/** Answers a server's question with the form filled from `--set field=value`, read against the form it asked. */
async function acceptQuestion({ id, path, parsed, config, out }: ApprovalAnswer): Promise<number> {
  only(parsed, ['set'], APPROVALS_USAGE);
  const shown = await ownerRequest(config, 'GET', path);
  if (shown.status !== 200) return failed(shown.json, out);
  const question = shown.json as { kind?: string; requested_schema?: Parameters<typeof describeForm>[0] };
  const content = contentFrom((parsed.values.set as string[] | undefined) ?? [], question.requested_schema ?? {});
  const { status, json } = await ownerRequest(config, 'POST', path, { decision: 'accept', content });
  if (status !== 200) return failed(json, out);
  out.log(`Answered the question of ${(json as { server?: string }).server ?? 'the server'} (${id}).`);
  return 0;
}

async function declineQuestion({ id, path, parsed, config, out }: ApprovalAnswer): Promise<number> {
  only(parsed, [], APPROVALS_USAGE);
  const { status, json } = await ownerRequest(config, 'POST', path, { decision: 'decline' });
  if (status !== 200) return failed(json, out);
  out.log(`Declined the question of ${(json as { server?: string }).server ?? 'the server'} (${id}).`);
  return 0;
}

async function denyCall({ id, path, parsed, config, out }: ApprovalAnswer): Promise<number> {
  only(parsed, ['message'], APPROVALS_USAGE);
  const message = str(parsed.values.message);
  const { status, json } = await ownerRequest(config, 'POST', path, { decision: 'deny', ...(message !== undefined && { message }) });
  if (status !== 200) return failed(json, out);
  out.log(`Denied ${(json as { tool: string }).tool} (${id}).`);
  return 0;
}
