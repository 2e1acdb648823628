import { createHash } from 'node:crypto';

/**
 * Fourteen skills shaped like the public anthropics/skills repository (docx, pdf, pptx, xlsx with
 * their scripts, references and OOXML schemas; canvas-design with its fonts; a PDF showcase and
 * archives among them): 227 files from 5 to 40 per skill, text and binary, about 3.6 MB. The
 * contents are made up but deterministic, so every run installs the same bytes. Nothing here
 * reads or writes files.
 */

export interface CorpusFile {
  filename: string;
  content: string;
  encoding?: 'base64';
}

export interface CorpusSkill {
  slug: string;
  description: string;
  files: CorpusFile[];
}

/** A run of similar files: `count` of them named `<dir><stem>-<n><ext>`, `bytes` each on average. */
type Group = [dir: string, stem: string, ext: string, count: number, bytes: number, binary?: 'binary'];

const SHAPES: [slug: string, description: string, groups: Group[]][] = [
  [
    'algorithmic-art',
    'Creating algorithmic art with p5.js: seeded randomness, flow fields and particle systems.',
    [
      ['templates/', 'generator_template', '.js', 1, 7_000],
      ['templates/', 'viewer', '.html', 1, 16_000],
      ['examples/', 'flow-field', '.js', 1, 5_000],
    ],
  ],
  [
    'brand-guidelines',
    'Applies the brand colours and typography to any artefact that needs the house style.',
    [
      ['assets/', 'logo', '.png', 1, 24_000, 'binary'],
      ['assets/', 'palette', '.json', 1, 900],
      ['reference/', 'typography', '.md', 1, 3_000],
    ],
  ],
  [
    'canvas-design',
    'Creates visual art in .png and .pdf documents using design philosophy and bundled fonts.',
    [
      ['canvas-fonts/', 'Typeface', '.ttf', 19, 70_000, 'binary'],
      ['canvas-fonts/', 'Typeface', '-OFL.txt', 19, 4_400],
    ],
  ],
  [
    'docx',
    'Creating, editing and analysing Word documents with tracked changes, comments and formatting.',
    [
      ['', 'docx-js', '.md', 1, 16_000],
      ['', 'ooxml', '.md', 1, 23_000],
      ['ooxml/scripts/', 'pack', '.py', 3, 4_000],
      ['ooxml/scripts/validation/', 'check', '.py', 5, 9_000],
      ['ooxml/schemas/ISO-IEC29500-4_2016/', 'part', '.xsd', 18, 22_000],
      ['scripts/', 'document', '.py', 3, 18_000],
      ['scripts/templates/', 'people', '.xml', 7, 1_500],
    ],
  ],
  [
    'pdf',
    'PDF manipulation: extract text and tables, create, merge and split documents, fill forms.',
    [
      ['', 'forms', '.md', 1, 9_000],
      ['', 'reference', '.md', 1, 17_000],
      ['scripts/', 'fill_fillable_fields', '.py', 11, 3_500],
      ['examples/', 'form', '.pdf', 1, 60_000, 'binary'],
    ],
  ],
  [
    'pptx',
    'Presentation creation, editing and analysis: layouts, templates, speaker notes and thumbnails.',
    [
      ['', 'html2pptx', '.md', 1, 25_000],
      ['', 'ooxml', '.md', 1, 10_000],
      ['ooxml/scripts/', 'unpack', '.py', 3, 4_000],
      ['ooxml/scripts/validation/', 'check', '.py', 5, 9_000],
      ['ooxml/schemas/ISO-IEC29500-4_2016/', 'part', '.xsd', 18, 22_000],
      ['scripts/', 'inventory', '.py', 6, 14_000],
      ['assets/', 'thumbnail-grid', '.png', 4, 30_000, 'binary'],
    ],
  ],
  [
    'xlsx',
    'Spreadsheet creation, editing and analysis with formulas, formatting and recalculation.',
    [
      ['', 'recalc', '.py', 1, 6_000],
      ['reference/', 'formulas', '.md', 1, 8_000],
      ['examples/', 'budget', '.xlsx', 1, 14_000, 'binary'],
    ],
  ],
  [
    'internal-comms',
    'Writes internal communications: status reports, leadership updates, newsletters and FAQs.',
    [['examples/', 'status-report', '.md', 6, 2_600]],
  ],
  [
    'mcp-builder',
    'Guide for creating high-quality MCP servers that let language models use external services.',
    [
      ['reference/', 'best_practices', '.md', 6, 14_000],
      ['scripts/', 'evaluation', '.py', 5, 6_000],
      ['scripts/', 'requirements', '.txt', 1, 60],
    ],
  ],
  [
    'skill-creator',
    'Guide for creating effective skills that extend an agent with workflows and tool integrations.',
    [
      ['scripts/', 'init_skill', '.py', 4, 7_000],
      ['references/', 'workflows', '.md', 5, 4_000],
      ['assets/', 'skill-template', '.zip', 1, 9_000, 'binary'],
    ],
  ],
  [
    'slack-gif-creator',
    'Creates animated GIFs optimised for Slack, with validators for size and frame limits.',
    [
      ['core/', 'frame_composer', '.py', 8, 8_000],
      ['', 'requirements', '.txt', 1, 80],
      ['examples/', 'wave', '.gif', 2, 40_000, 'binary'],
    ],
  ],
  [
    'theme-factory',
    'Styles artefacts with one of ten preset themes or a theme generated on the fly.',
    [
      ['', 'theme-showcase', '.pdf', 1, 124_000, 'binary'],
      ['themes/', 'ocean-depths', '.md', 12, 1_400],
    ],
  ],
  [
    'webapp-testing',
    'Interacts with and tests local web applications using Playwright, with screenshots and logs.',
    [
      ['examples/', 'element_discovery', '.py', 3, 2_500],
      ['scripts/', 'with_server', '.py', 1, 3_800],
      ['reference/', 'selectors', '.md', 2, 2_000],
    ],
  ],
  [
    'web-artifacts-builder',
    'Builds elaborate multi-component HTML artefacts with React, Tailwind CSS and shadcn/ui.',
    [
      ['scripts/', 'init-artifact', '.sh', 2, 9_000],
      ['scripts/', 'shadcn-components', '.tar.gz', 1, 20_000, 'binary'],
      ['', 'README', '.md', 1, 1_200],
    ],
  ],
];

const WORDS = (
  'the skill reads a document and writes the result with care so that each step can be checked ' +
  'before the next one starts use the script for large files and the reference for edge cases ' +
  'tables lists headings styles fonts colours layouts slides pages sheets formulas values cells'
).split(' ');

/** Deterministic bytes for a name: SHA-256 in counter mode, as incompressible as real binaries. */
function bytesFor(name: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let offset = 0, block = 0; offset < size; block++) {
    offset += createHash('sha256').update(`${name}#${block}`).digest().copy(out, offset);
  }
  return out;
}

/** Deterministic prose of about `size` bytes, in lines of ten words. */
function textFor(name: string, size: number): string {
  const seed = bytesFor(name, 64);
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const line = Array.from({ length: 10 }, (_, w) => WORDS[(seed[(i * 10 + w) % 64]! + i * 7 + w) % WORDS.length]).join(' ');
    lines.push(line);
    length += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** Sizes vary ±40% around the group's average, the same way every run. */
const sized = (name: string, bytes: number) => Math.max(40, Math.round(bytes * (0.6 + (bytesFor(name, 1)[0]! / 255) * 0.8)));

function skillFiles(slug: string, description: string, groups: Group[]): CorpusFile[] {
  const files: CorpusFile[] = [
    {
      filename: 'SKILL.md',
      content: `---\nname: ${slug}\ndescription: ${JSON.stringify(description)}\nlicense: Complete terms in LICENSE.txt\n---\n# ${slug}\n\n${textFor(`${slug}/SKILL.md`, 9_000)}`,
    },
    { filename: 'LICENSE.txt', content: textFor(`${slug}/LICENSE.txt`, 11_000) },
  ];
  for (const [dir, stem, ext, count, bytes, binary] of groups) {
    for (let n = 1; n <= count; n++) {
      const filename = `${dir}${stem}${count > 1 ? `-${n}` : ''}${ext}`;
      const size = sized(`${slug}/${filename}`, bytes);
      files.push(
        binary
          ? { filename, content: bytesFor(`${slug}/${filename}`, size).toString('base64'), encoding: 'base64' }
          : { filename, content: textFor(`${slug}/${filename}`, size) },
      );
    }
  }
  return files;
}

/**
 * `count` skills: the fourteen shapes in order, then again with a numbered slug (`docx-2`) when
 * more are asked for.
 */
export function skillCorpus(count = SHAPES.length): CorpusSkill[] {
  return Array.from({ length: count }, (_, i) => {
    const [base, description, groups] = SHAPES[i % SHAPES.length]!;
    const round = Math.floor(i / SHAPES.length);
    const slug = round === 0 ? base : `${base}-${round + 1}`;
    return { slug, description, files: skillFiles(slug, description, groups) };
  });
}
