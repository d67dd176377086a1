import type { Mermaid } from 'mermaid';

/**
 * A real parse of the Mermaid charts benchgate writes, with mermaid itself (the library GitHub draws them with),
 * not a comparison of strings: a label that escaped into the chart's syntax fails the parse or changes what it
 * holds. Mermaid sanitises every label with DOMPurify, which needs a DOM: jsdom's window, set before mermaid is
 * first loaded. Shared by the unit tests and the action's end-to-end test.
 */

/** An xychart as Mermaid read it: its labels as the drawn chart shows them. */
export interface ParsedChart {
  title: string;
  xTitle: string;
  xLabels: string[];
  yTitle: string;
  yRange: [number, number];
  lines: { title: string; values: number[]; colour: string }[];
}

interface XyChartData {
  xAxis: { title: string; categories: string[] };
  yAxis: { title: string; min: number; max: number };
  plots: { type: string; title: string; strokeFill: string; data: [string, number][] }[];
}

interface Loaded {
  mermaid: Mermaid;
  document: { createElement(tag: string): { innerHTML: string; textContent: string | null } };
}

let loaded: Promise<Loaded> | undefined;

async function load(): Promise<Loaded> {
  const { JSDOM } = await import('jsdom');
  const { window } = new JSDOM('');
  // DOMPurify binds to the global window when first imported, and mermaid imports it.
  Object.assign(globalThis, { window });
  const mermaid = (await import('mermaid')).default;
  return { mermaid, document: window.document };
}

/** Parses one xychart (throws Mermaid's own error when it does not parse) and reads back what it holds. */
export async function parseXyChart(source: string): Promise<ParsedChart> {
  const { mermaid, document } = await (loaded ??= load());
  const result = await mermaid.parse(source);
  if (result.diagramType !== 'xychart') throw new Error(`parsed as ${result.diagramType}, not an xychart`);
  // parse() reads the front matter and sets its config; the diagram is built from what follows it, as render() does.
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(source.replace(/^---\n[\s\S]*?\n---\n/, ''));
  const db = diagram.db as unknown as { getXYChartData(): XyChartData; getDiagramTitle(): string };
  const data = db.getXYChartData();
  /**
   * What the drawn chart shows for a label: xychart sets it as an SVG text node; render() then serialises the SVG,
   * turns the placeholders of entity codes (#34; was read as ﬂ°°34¶ß) into character references, and the browser
   * decodes those.
   */
  const shown = (text: string) => {
    const serialised = text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\u00a0/g, '&nbsp;');
    const div = document.createElement('div');
    div.innerHTML = serialised.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
    return div.textContent ?? '';
  };
  return {
    title: shown(db.getDiagramTitle()),
    xTitle: shown(data.xAxis.title),
    xLabels: data.xAxis.categories.map(shown),
    yTitle: shown(data.yAxis.title),
    yRange: [data.yAxis.min, data.yAxis.max],
    lines: data.plots
      .filter((p) => p.type === 'line')
      .map((p) => ({ title: shown(p.title), values: p.data.map(([, value]) => value), colour: p.strokeFill })),
  };
}

/** The contents of every ```mermaid block of a markdown text. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}
