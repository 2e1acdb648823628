import type { WindowLike } from 'dompurify';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { renderSkillFile } from '../../site/src/data/build-skill-file-renderer.ts';
import { createSkillFileRenderer } from '../../site/src/lib/skill-file-rendering.ts';
import { createSkillHtmlSanitiser, urlKind } from '../../site/src/lib/skill-html-sanitiser.ts';
import { frontMatterRows, RENDERED_BODY_LIMIT } from '../../site/src/lib/skill-markdown.ts';

/**
 * The one policy for showing a `SKILL.md` (site/src/lib/skill-file-rendering.ts), as the site
 * build runs it (jsdom, highlight.js) and as the browser runs it (its own DOM, no highlighter).
 */
const window = new JSDOM('').window as unknown as WindowLike;
const inBrowser = createSkillFileRenderer(window);

/** The rendered body as a DOM, to ask what is in it rather than match strings. */
function dom(html: string): DocumentFragment {
  return JSDOM.fragment(html);
}

const skillFile = (body: string, frontMatter = 'name: pretty-json\ndescription: Formats JSON') => `---\n${frontMatter}\n---\n${body}`;

describe('the front matter', () => {
  it('becomes rows of text in file order, nested mappings flattened, lists joined', () => {
    const { frontMatter } = inBrowser(
      skillFile(
        '# Body',
        'name: pretty-json\ndescription: Formats JSON\nlicense: MIT\nmetadata:\n  author: alice\n  version: "2.0"\nallowed-tools: [Bash, Read]',
      ),
    );
    expect(frontMatter).toEqual([
      { key: 'name', value: 'pretty-json' },
      { key: 'description', value: 'Formats JSON' },
      { key: 'license', value: 'MIT' },
      { key: 'metadata.author', value: 'alice' },
      { key: 'metadata.version', value: '2.0' },
      { key: 'allowed-tools', value: 'Bash, Read' },
    ]);
  });

  it('keeps markup in values as text (the page sets it with textContent)', () => {
    expect(frontMatterRows({ description: '<img src=x onerror=alert(1)>', n: 3, yes: true, none: null })).toEqual([
      { key: 'description', value: '<img src=x onerror=alert(1)>' },
      { key: 'n', value: '3' },
      { key: 'yes', value: 'true' },
      { key: 'none', value: '' },
    ]);
  });

  it('is empty without front matter, and the whole file is the body', () => {
    const rendered = inBrowser('# Just a heading\n\nText.');
    expect(rendered.frontMatter).toEqual([]);
    expect(dom(rendered.html).querySelector('h3')?.textContent).toBe('Just a heading');
  });
});

describe('the body', () => {
  it('is Markdown with GitHub tables and task lists, its headings below the page’s own h1 and h2', () => {
    const { html } = inBrowser(
      skillFile('# Pretty JSON\n\n## Usage\n\nRun **it**:\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n###### Deep\n'),
    );
    const body = dom(html);
    expect([...body.querySelectorAll('h3, h4, h6')].map((h) => `${h.nodeName}:${h.textContent}`)).toEqual(['H3:Pretty JSON', 'H4:Usage', 'H6:Deep']);
    expect(body.querySelector('strong')?.textContent).toBe('it');
    expect([...body.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1', '2']);
    const boxes = [...body.querySelectorAll('input')];
    expect(boxes.map((b) => [b.type, b.checked, b.disabled])).toEqual([
      ['checkbox', true, true],
      ['checkbox', false, true],
    ]);
  });

  it('highlights code blocks at build time with class names only, and leaves them plain in the browser', () => {
    const source = skillFile('```bash\necho "hi" # greet\n```\n\n```nosuchlanguage\n<b>x</b>\n```\n');
    const built = dom(renderSkillFile(source).html);
    const [bash, unknown] = [...built.querySelectorAll('pre > code')];
    expect(bash!.className).toBe('hljs language-bash');
    expect(bash!.textContent).toBe('echo "hi" # greet\n');
    expect([...bash!.querySelectorAll('span')].map((s) => s.className)).toEqual(expect.arrayContaining(['hljs-built_in', 'hljs-string', 'hljs-comment']));
    expect(built.querySelector('[style]')).toBeNull();
    expect(unknown!.className).toBe('language-nosuchlanguage');
    expect(unknown!.textContent).toBe('<b>x</b>\n');
    expect(unknown!.querySelector('b')).toBeNull();
    expect(built.querySelector('pre')!.getAttribute('tabindex')).toBe('0');

    const plain = dom(inBrowser(source).html).querySelector('pre > code')!;
    expect(plain.className).toBe('language-bash');
    expect(plain.children).toHaveLength(0);
    expect(plain.textContent).toBe('echo "hi" # greet\n');
  });

  it('cuts a body over the limit and says so', () => {
    const long = inBrowser(skillFile(`${'word '.repeat(RENDERED_BODY_LIMIT / 5 + 100)}`));
    expect(long.truncated).toBe(true);
    expect(dom(long.html).textContent!.length).toBeLessThanOrEqual(RENDERED_BODY_LIMIT + 1);
    expect(inBrowser(skillFile('short')).truncated).toBe(false);
  });
});

describe('sanitising', () => {
  const hostile = skillFile(
    [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '<img src="https://example.com/ok.png" alt="fine" onload="alert(3)">',
      '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" alt="data">',
      '[click](javascript:alert(4)) <a href="java&#9;script:alert(5)">tab</a> [data](data:text/html;base64,PHNjcmlwdD4=)',
      '[web](https://example.com/a) [mail](mailto:a@example.com) [anchor](#usage) [relative](reference.md) [proto](//evil.example/x)',
      '<a href="JaVaScRiPt:alert(7)">upper</a>',
      '<div onclick="alert(8)" style="position:fixed;inset:0" id="main" class="evil">overlay</div>',
      '<iframe src="https://example.com"></iframe><form action="/api/publish"><input type="text" name="q"><button>go</button></form>',
      '<svg><script>alert(9)</script></svg><math><mi xlink:href="javascript:alert(10)">m</mi></math>',
      '<style>body{display:none}</style><link rel="stylesheet" href="https://evil.example/x.css">',
      '<details open><summary>More</summary>Hidden <kbd>Ctrl</kbd></details>',
      '<p data-x="1" aria-hidden="true" title="kept">attributes</p>',
    ].join('\n\n'),
  );

  for (const [name, render] of [
    ['at build time', (s: string) => renderSkillFile(s).html],
    ['in the browser', (s: string) => inBrowser(s).html],
  ] as const) {
    it(`leaves nothing that runs, loads from elsewhere unasked, or styles the page (${name})`, () => {
      const html = render(hostile);
      const body = dom(html);
      expect(body.querySelectorAll('script, style, link, iframe, form, button, svg, math, object, embed')).toHaveLength(0);
      const attributes = [...body.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => `${el.nodeName.toLowerCase()}[${a.name}=${a.value}]`));
      expect(attributes.filter((a) => /^[a-z]+\[on/.test(a))).toEqual([]);
      expect(attributes.filter((a) => /\[(style|id|name|data-x|aria-hidden|action|xlink:href)=/.test(a))).toEqual([]);
      expect(html).not.toMatch(/javascript:|data:|alert\(1\)/i);

      const links = [...body.querySelectorAll('a:not(.image-link)')].map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')]);
      expect(links).toEqual([
        ['click', null, null],
        ['tab', null, null],
        ['data', null, null],
        ['web', 'https://example.com/a', 'nofollow noopener'],
        ['mail', 'mailto:a@example.com', 'nofollow noopener'],
        ['anchor', '#usage', 'nofollow noopener'],
        ['relative', null, null],
        ['proto', null, null],
        ['upper', null, null],
      ]);
      // Images are never loaded: the web one is a link, the others are their alt text at most.
      expect(body.querySelectorAll('img')).toHaveLength(0);
      expect(body.querySelector('a.image-link')?.outerHTML).toBe(
        '<a href="https://example.com/ok.png" class="image-link" rel="nofollow noopener noreferrer">Image: fine</a>',
      );
      expect(body.querySelectorAll('input:not([type=checkbox]), input:not([disabled])')).toHaveLength(0);
      expect(body.querySelector('div')?.className ?? '').toBe('');
      expect(body.querySelector('div')?.textContent).toBe('overlay');
      expect(body.querySelector('details summary')?.textContent).toBe('More');
      expect(body.querySelector('p[title=kept]')?.textContent).toBe('attributes');
    });
  }
});

describe('the sanitiser alone', () => {
  // In the browser the Markdown is read in a Worker and only its HTML comes back to the page: the
  // page's half must hold whatever HTML it is given, not only what marked makes.
  const sanitise = createSkillHtmlSanitiser(window);

  it('keeps nothing that runs from raw HTML handed to it, as if the Worker had answered it', () => {
    const html = sanitise(
      [
        '<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)" onmouseover="alert(4)">a</a>',
        '<div onclick="alert(5)" style="color:red" id="main">d</div><svg onload="alert(6)"><script>alert(7)</script></svg>',
        '<iframe srcdoc="<script>alert(8)</script>"></iframe><object data="x"></object><embed src="x">',
        '<noscript><p title="</noscript><img src=x onerror=alert(9)>"></p></noscript>',
        '<template><script>alert(10)</script></template><form action="/api/x"><input name="q" autofocus onfocus="alert(11)"></form>',
        '<math><mtext><table><mglyph><style><img src=x onerror=alert(12)></style></mglyph></table></mtext></math>',
      ].join(''),
    );
    const body = dom(html);
    expect(body.querySelectorAll('script, iframe, object, embed, svg, math, form, template, noscript, style, img')).toHaveLength(0);
    const attributes = [...body.querySelectorAll('*')].flatMap((el) => [...el.attributes].map((a) => a.name));
    expect(attributes.filter((name) => name.startsWith('on') || name === 'style' || name === 'id' || name === 'srcdoc')).toEqual([]);
    expect(html).not.toMatch(/javascript:|alert\(\d+\)\s*<\/script|onerror=/i);
    expect([...body.querySelectorAll('input')].every((input) => input.getAttribute('type') === 'checkbox' && input.hasAttribute('disabled'))).toBe(true);
  });
});

describe('images', () => {
  const images = skillFile(
    [
      '![The pipeline](https://tracker.example/pixel.png?visitor=1 "A diagram")',
      '![](https://cdn.example/a/b/diagram.svg)',
      '![local](assets/diagram.png)',
      '<img src="https://tracker.example/raw.gif" alt="raw" width="1" height="1">',
      '<picture><source srcset="https://tracker.example/s.webp"><img src="https://tracker.example/p.png" alt="pic"></picture>',
      '[![badge](https://img.shields.io/badge/x-y-green)](https://example.com/ci)',
    ].join('\n\n'),
  );

  for (const [name, render] of [
    ['at build time', (s: string) => renderSkillFile(s).html],
    ['in the browser', (s: string) => inBrowser(s).html],
  ] as const) {
    it(`renders remote images as links, so no visitor's browser fetches anything from another host (${name})`, () => {
      const body = dom(render(images));
      expect(body.querySelectorAll('img, picture, source, [srcset]')).toHaveLength(0);
      expect([...body.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')])).toEqual([
        ['Image: The pipeline', 'https://tracker.example/pixel.png?visitor=1', 'nofollow noopener noreferrer'],
        ['Image: diagram.svg', 'https://cdn.example/a/b/diagram.svg', 'nofollow noopener noreferrer'],
        ['Image: raw', 'https://tracker.example/raw.gif', 'nofollow noopener noreferrer'],
        ['Image: pic', 'https://tracker.example/p.png', 'nofollow noopener noreferrer'],
        ['Image: badge', 'https://example.com/ci', 'nofollow noopener'],
      ]);
      // A path inside the skill has nothing to point at on the site: its alt text stays.
      expect(body.textContent).toContain('local');
      expect(body.querySelector('a[href="https://img.shields.io/badge/x-y-green"]')).toBeNull();
    });
  }
});

describe('what a URL is', () => {
  it('tells web links and fragments from everything else, as browsers parse them', () => {
    expect(['https://a.example', 'HTTP://a.example', 'mailto:x@y', ' https://a.example'].map(urlKind)).toEqual(['web', 'web', 'web', 'web']);
    expect(urlKind('#usage')).toBe('fragment');
    expect(
      [
        'javascript:alert(1)',
        'java\nscript:alert(1)',
        '\u0001javascript:x',
        'data:text/html,x',
        'vbscript:x',
        'file:///etc/passwd',
        'reference.md',
        '../x',
        '//evil.example',
        '',
      ].map(urlKind),
    ).toEqual(Array(10).fill('other'));
  });
});
