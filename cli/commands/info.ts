import { formatPrice } from '../../core/price.ts';
import { provenanceLine, runUrl } from '../../core/provenance.ts';
import type { RegistryDocument } from '../../core/registry-document.ts';
import type { CommandIo } from '../ui.ts';
import { RegistryClient } from '../registry-client.ts';
import { columns, formatBytes } from '../ui.ts';
import { parseRequest } from '../version-spec.ts';
import { checkSignature, summaryFacts } from '../verify-signature.ts';

export interface InfoOptions {
  registry: string;
  slug: string;
}

/**
 * `skillpress info <slug>`: the registry document, readable; `--json` prints it as served. The
 * provenance and yanks it shows of each version are checked against the registry's signatures
 * first (`bad_signature`, exit 3, when one does not hold).
 */
export async function info(options: InfoOptions, io: CommandIo): Promise<RegistryDocument> {
  const { slug } = parseRequest(options.slug);
  const client = new RegistryClient(options.registry, io);
  const doc = await client.skill(slug);
  await Promise.all(doc.versions.map((v) => checkSignature(client, summaryFacts(slug, v), v.signature)));
  const { ui } = io;
  const { c } = ui;
  const price = doc.paid ? ` ${c.yellow(doc.price ? formatPrice(doc.price) : 'paid, not for sale')}` : '';
  ui.line(`${c.bold(doc.name)}${doc.name === doc.slug ? '' : ` ${c.dim(`(${doc.slug})`)}`} ${c.green(doc.currentVersion)}${price}`);
  ui.line(doc.description);
  ui.line(c.dim(`by ${doc.author} · ${doc.category} · updated ${doc.updatedAt.slice(0, 10)}`));
  ui.line();
  ui.line(c.bold('Versions') + c.dim(' (newest first)'));
  for (const row of columns(
    doc.versions.map((v) => [
      `  ${v.version}`,
      c.dim(v.publishedAt.slice(0, 10)),
      v.provenance ? c.green('CI') : c.dim('—'),
      v.changelog.split('\n')[0] || c.dim('no changelog'),
    ]),
  ))
    ui.line(row);
  const current = doc.versions.find((v) => v.version === doc.currentVersion);
  ui.line();
  if (current?.provenance) {
    ui.line(`${c.bold('Provenance')} ${c.dim(`of ${doc.currentVersion}`)}: ${provenanceLine(current.provenance)}`);
    ui.line(
      c.dim(
        `  ref ${current.provenance.ref} · commit ${current.provenance.sha}${current.provenance.environment ? ` · environment ${current.provenance.environment}` : ''}`,
      ),
    );
    ui.line(c.dim(`  run ${runUrl(current.provenance)}`));
  } else {
    ui.line(`${c.bold('Provenance')} ${c.dim(`of ${doc.currentVersion}`)}: ${c.dim('none (not published from CI by a trusted publisher)')}`);
  }
  ui.line();
  ui.line(`${c.bold('Files')} ${c.dim(`of ${doc.currentVersion}`)}`);
  for (const row of columns(doc.files.map((f) => [`  ${f.filename}`, c.dim(formatBytes(f.size))]))) ui.line(row);
  const deps = Object.entries(doc.dependencies);
  if (deps.length > 0) {
    ui.line();
    ui.line(c.bold('Dependencies'));
    for (const row of columns(deps.map(([name, range]) => [`  ${name}`, range]))) ui.line(row);
  }
  ui.line();
  ui.line(`Install: ${c.cyan(`skillpress install ${doc.slug}`)}`);
  if (doc.paid)
    ui.line(
      c.dim(`  paid: buy it at ${options.registry}/skills/${doc.slug}/, then install with your API key (skillpress login), or pass --token from the author`),
    );
  return doc;
}
