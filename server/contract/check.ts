/**
 * A compile-time check that a richer internal type can go on the wire as the contract's type: `Assignable<Internal,
 * Wire>` fails to compile when a field the wire promises is missing or of another type on the server.
 */
export type Assignable<From extends To, To> = [From, To];
