/** `api-keys` → `ApiKeys`, for construct ids. */
export function pascal(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}
