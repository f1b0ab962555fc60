import type { GatewayFeed } from './feed.svelte';
// PLACEHOLDER: replaced by the Approvals view's work.
export class ApprovalQueue {
  count = $state(0);
  constructor(readonly feed: GatewayFeed) {}
  dispose(): void {}
}
