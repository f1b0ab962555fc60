/** A bounded map that forgets the least recently used entry first. */
export class Lru<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly limit: number) {}

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.limit) this.#map.delete(this.#map.keys().next().value as K);
  }

  clear(): void {
    this.#map.clear();
  }
}
