import { minorDigits } from '#core/price';
import type { RegistryDocument } from '#core/registry-document';
import { authorPagePath, skillPagePath } from '#core/static-paths';
import { LOCAL_ORIGIN } from './format.ts';

/**
 * What a page tells crawlers and the sites it is shared on, beside its title and description:
 * its canonical address (absolute, on the deployment's origin), and structured data (schema.org
 * in JSON-LD): every page is a `WebPage` of the `WebSite`, the home page says how to search it,
 * and a skill page describes the skill as a `SoftwareApplication` with its author, version,
 * price, licence and where its source lives.
 */

/** The deployment's origin, which the build is told; the local runtime's when it is not. */
export function siteOrigin(): string {
  return (process.env.SITE_ORIGIN || process.env.SKILLPRESS_PUBLIC_ORIGIN || LOCAL_ORIGIN).replace(/\/+$/, '');
}

type JsonLd = Record<string, unknown>;

export function webSite(origin: string): JsonLd {
  return {
    '@type': 'WebSite',
    '@id': `${origin}/#website`,
    name: 'Skillpress',
    url: `${origin}/`,
    potentialAction: { '@type': 'SearchAction', target: `${origin}/?q={search_term_string}`, 'query-input': 'required name=search_term_string' },
  };
}

export function webPage(origin: string, url: string, name: string, description: string): JsonLd {
  return { '@type': 'WebPage', '@id': url, url, name, description, isPartOf: { '@id': `${origin}/#website` } };
}

/** `facts`: what the page shows from the skill's `SKILL.md` front matter (lib/skill-facts.ts). */
export function softwareApplication(origin: string, doc: RegistryDocument, facts: { license?: string; source?: string } = {}): JsonLd {
  const url = `${origin}${skillPagePath(doc.slug)}`;
  const price = doc.paid ? doc.price : undefined;
  return {
    '@type': 'SoftwareApplication',
    '@id': `${url}#skill`,
    name: doc.name,
    description: doc.description,
    url,
    applicationCategory: 'DeveloperApplication',
    applicationSubCategory: doc.category,
    operatingSystem: 'Any (an agent skill: Claude Code, Codex, Cursor and other agents)',
    softwareVersion: doc.currentVersion,
    dateModified: doc.updatedAt,
    author: { '@type': 'Person', name: doc.author, url: `${origin}${authorPagePath(doc.author)}` },
    // A paid skill not on sale yet has no offer to make.
    ...(!doc.paid
      ? { offers: { '@type': 'Offer', price: '0', priceCurrency: 'USD' } }
      : price
        ? { offers: { '@type': 'Offer', price: (price.amount / 10 ** minorDigits(price.currency)).toString(), priceCurrency: price.currency.toUpperCase() } }
        : {}),
    ...(facts.license ? { license: facts.license } : {}),
    ...(facts.source ? { sameAs: facts.source } : {}),
  };
}

/** The `<script type="application/ld+json">` text: `<` escaped, so no name can end the element. */
export function jsonLdText(items: JsonLd[]): string {
  return JSON.stringify({ '@context': 'https://schema.org', '@graph': items }).replace(/</g, '\\u003c');
}
