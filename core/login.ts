/**
 * A login, as GitHub spells one: a letter or digit, then up to 38 letters, digits and hyphens.
 * Users and organisations share this namespace (docs/api.md §13). Kept apart from the schemas so
 * that the storage code, which checks a login before it asks DynamoDB, loads no zod for it.
 */
export const LOGIN_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
