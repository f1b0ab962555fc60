import type { GatewayFeed } from './feed.svelte';
// PLACEHOLDER: replaced by the Live view's work.
export class CallLog {
  constructor(readonly feed: GatewayFeed) {}
  dispose(): void {}
}
