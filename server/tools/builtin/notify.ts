import type { DesktopBridge } from '../../desktop.js';
import { ToolError } from '../../errors.js';
import type { Announcer } from '../../events/bus.js';
import { defineTool } from '../types.js';

/**
 * Security: a client (a prompt-injected model, a loop) could otherwise cover the desktop with notifications and bury
 * the ones that matter, approvals among them. Each client may send this many a minute; the rest are refused, said so.
 */
export const NOTIFICATIONS_PER_MINUTE = 6;
const MINUTE_MS = 60_000;

/** A notification for the person at the machine: the log always shows it, the desktop also natively. */
export type { Notification } from '../../contract/events.js';

interface NotifyArgs {
  title: string;
  message: string;
  urgency: 'low' | 'normal' | 'critical';
}

/** `events`: where every notification is announced (the activity log shows it, desktop or not). */
export function createNotifyTool(options: { events: Announcer<'notify'>; desktop: DesktopBridge | undefined; now?: () => number }) {
  const now = options.now ?? Date.now;
  /** When each client's recent notifications were sent (the last minute's), oldest first. */
  const sent = new Map<string, number[]>();
  const take = (client: string): void => {
    const at = now();
    const recent = (sent.get(client) ?? []).filter((time) => time > at - MINUTE_MS);
    if (recent.length >= NOTIFICATIONS_PER_MINUTE) {
      sent.set(client, recent);
      const wait = Math.ceil((recent[0]! + MINUTE_MS - at) / 1000);
      throw new ToolError(
        'NOTIFY_RATE_LIMITED',
        `Not shown: ${client} sent ${NOTIFICATIONS_PER_MINUTE} notifications in the last minute, as many as a client may; send the next in ${wait} s, or gather what is left into one.`,
        { limit_per_minute: NOTIFICATIONS_PER_MINUTE, retry_after_s: wait },
      );
    }
    recent.push(at);
    sent.set(client, recent);
  };
  return defineTool<NotifyArgs, { delivered: boolean; reason?: string }>({
    name: 'notify',
    description:
      'Show a desktop notification to the person at this machine, e.g. when a long task finishes or needs their attention. ' +
      'Returns delivered:false with a reason when no desktop is available (the gateway runs headless); the notification still appears in the activity log. ' +
      `At most ${NOTIFICATIONS_PER_MINUTE} a minute.`,
    parameters: {
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 120, description: 'A short headline.' },
        message: { type: 'string', maxLength: 1000, description: 'The body text.' },
        urgency: { type: 'string', enum: ['low', 'normal', 'critical'], default: 'normal' },
      },
      required: ['title', 'message'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { delivered: { type: 'boolean' }, reason: { type: 'string' } }, required: ['delivered'] },
    category: 'desktop',
    risk: 'safe',
    annotations: { title: 'Notify the user', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    timeoutMs: 10_000,
    async handler(args, ctx) {
      take(ctx.client);
      options.events.emit('notify', { call_id: ctx.callId, client: ctx.client, ...args });
      if (!options.desktop) {
        return { delivered: false, reason: 'Pincer is running headless (no desktop app), so the notification was only logged.' };
      }
      // Security: the title says who sent it, so a client cannot pass its text off as Pincer's own notification (an
      // approval's reads "Pincer: <client> asks to run …").
      const shown = await options.desktop.notify({ ...args, title: `${ctx.client}: ${args.title}` });
      return shown ? { delivered: true } : { delivered: false, reason: 'The desktop refused the notification (notifications may be turned off).' };
    },
  });
}
