import { DEFAULT_BOX, type DayCounts, PHONE_BOX, PHONE_QUERY, stackedBars } from '../../lib/chart-geometry.ts';

/**
 * Draws the 30 daily points as stacked bars into the dashboard's <svg> (fixed viewBox, so the
 * layout never moves). Each day is a group with a <title> naming its numbers, and every bar
 * segment carries its value, so the drawing can be checked against the API's numbers; the
 * same numbers are in the table under the chart for screen readers and keyboards.
 */
const SVG = 'http://www.w3.org/2000/svg';

const phone = matchMedia(PHONE_QUERY);
let drawn: { svg: SVGSVGElement; daily: readonly DayCounts[] } | undefined;
// Turned sideways or resized across the breakpoint: drawn again in the other box.
phone.addEventListener('change', () => drawn && drawChart(drawn.svg, drawn.daily));

export function drawChart(svg: SVGSVGElement, daily: readonly DayCounts[]): void {
  drawn = { svg, daily };
  const chart = stackedBars(daily, phone.matches ? PHONE_BOX : DEFAULT_BOX);
  const { box } = chart;
  svg.setAttribute('viewBox', `0 0 ${box.width} ${box.height}`);
  for (const node of [...svg.children]) if (node.tagName !== 'title' && node.tagName !== 'desc') node.remove();

  for (const tick of chart.ticks) {
    svg.append(
      element('line', { class: 'axis', x1: box.left, x2: box.width, y1: tick.y, y2: tick.y }),
      element('text', { x: box.left - 6, y: tick.y + 4, 'text-anchor': 'end' }, String(tick.value)),
    );
  }
  for (const bar of chart.bars) {
    const group = element('g', { class: 'bar', 'data-date': bar.date, 'data-total': bar.total });
    group.append(
      element(
        'title',
        {},
        `${bar.date}: ${bar.total} ${bar.total === 1 ? 'install' : 'installs'} (CLI ${bar.segments[0]!.value}, web ${bar.segments[1]!.value}, API ${bar.segments[2]!.value})`,
      ),
    );
    for (const segment of bar.segments) {
      group.append(
        element('rect', {
          class: segment.source,
          x: bar.x,
          y: segment.y,
          width: bar.width,
          height: segment.height,
          'data-source': segment.source,
          'data-value': segment.value,
        }),
      );
    }
    svg.append(group);
  }
  // Dates under the first, middle and last day; the outer ones anchored inwards so they fit.
  const last = chart.bars.length - 1;
  for (const [i, anchor] of [
    [0, 'start'],
    [Math.floor(last / 2), 'middle'],
    [last, 'end'],
  ] as const) {
    const bar = chart.bars[i];
    if (!bar) continue;
    const x = anchor === 'start' ? bar.x : anchor === 'end' ? bar.x + bar.width : bar.x + bar.width / 2;
    svg.append(element('text', { x, y: box.height - 6, 'text-anchor': anchor }, bar.date.slice(5)));
  }

  const total = chart.bars.reduce((sum, b) => sum + b.total, 0);
  const peak = chart.bars.reduce((best, b) => (b.total > best.total ? b : best), chart.bars[0] ?? { total: 0, date: '' });
  svg.querySelector('desc')!.textContent =
    total === 0
      ? 'No installs in the last 30 days.'
      : `${total} installs in the last 30 days; the busiest day was ${peak.date} with ${peak.total}. The table below lists every day.`;
}

function element(name: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}
