import type { ContentBlock } from '../../tools/content.js';

/** A resource an imported server named in a call's result: readable by the client that made the call, for a while. */
export interface OfferedResource {
  client: string;
  uri: string;
  /** The imported tool whose result named it. */
  tool: string;
  name: string;
  mimeType: string | undefined;
  expires: number;
}

/** How long a client may read a resource a result named, and how many such links a server keeps. */
const RESOURCE_LINK_TTL_MS = 60 * 60_000;
const MAX_OFFERED_RESOURCES = 1_000;

/**
 * The resources one server named in its results, by client and URI.
 * Security: only these can be read through Pincer, and only by the client whose call was given the link.
 */
export class OfferedResources {
  readonly #offered = new Map<string, OfferedResource>();

  /** Remembers the resources a result named, as readable by the client whose call got them. */
  note(client: string, tool: string, content: ContentBlock[]): void {
    const expires = Date.now() + RESOURCE_LINK_TTL_MS;
    for (const block of content) {
      const named =
        block.type === 'resource_link'
          ? { uri: block.uri, name: block.name, mimeType: block.mimeType }
          : block.type === 'resource'
            ? { uri: block.resource.uri, name: block.resource.uri, mimeType: block.resource.mimeType }
            : undefined;
      if (!named) continue;
      const key = `${client}\u0000${named.uri}`;
      this.#offered.delete(key);
      this.#offered.set(key, { client, tool, ...named, expires });
    }
    // Oldest first in a Map: past the cap, the oldest links are forgotten.
    for (const key of this.#offered.keys()) {
      if (this.#offered.size <= MAX_OFFERED_RESOURCES) break;
      this.#offered.delete(key);
    }
  }

  /** The resources offered `client` that have not expired, newest last. */
  list(client: string): OfferedResource[] {
    const now = Date.now();
    return [...this.#offered.values()].filter((r) => r.client === client && r.expires > now);
  }

  /** Whether `uri` was offered `client` and the offer has not expired. */
  has(client: string, uri: string): boolean {
    const offer = this.#offered.get(`${client}\u0000${uri}`);
    return offer !== undefined && offer.expires > Date.now();
  }
}
