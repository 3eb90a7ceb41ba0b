/**
 * The services' limits that bound what an honest answer can hold, one source for the service that
 * enforces them and the clients that refuse answers beyond them (src/clients/answer-limits.ts).
 */

/** Routes an API may hold; one more is a 409 ConflictException. */
export const MAX_ROUTES_PER_API = 300;
/** Integrations an API may hold; one more is a 409 ConflictException. */
export const MAX_INTEGRATIONS_PER_API = 300;
/** Largest request body the service reads; larger ones are refused with a 400. It bounds every stored item. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Longest page token (both services' contracts: NextToken and nextToken are 0 to 1000 characters). */
export const MAX_PAGE_TOKEN_LENGTH = 1000;
