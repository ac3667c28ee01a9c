// Charts as inline SVG, built with h() (every label is a Text node).

import { fmt, h } from "./dom.js";

/**
 * A histogram: `bins` = {edges: [n+1 numbers], counts: [n]}. Returns an <svg> with one bar
 * per bin, each with a <title> tooltip, and the axis range below.
 */
export function histogram(bins, label) {
  const width = 320;
  const height = 140;
  const pad = { left: 28, right: 8, top: 8, bottom: 22 };
  const counts = bins.counts || [];
  const edges = bins.edges || [];
  const svg = h("svg", {
    class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `Histogram of ${label}`, "data-metric": label,
  });
  if (!counts.length) {
    svg.appendChild(h("text", { x: width / 2, y: height / 2, "text-anchor": "middle" }, "no scores"));
    return svg;
  }
  const top = Math.max(...counts);
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const barW = plotW / counts.length;
  counts.forEach((count, i) => {
    const barH = top ? (count / top) * plotH : 0;
    const x = pad.left + i * barW;
    const y = pad.top + plotH - barH;
    svg.appendChild(
      h("rect", { class: "bar", x: x + 1, y, width: Math.max(barW - 2, 1), height: Math.max(barH, 0) },
        h("title", {}, `${fmt(edges[i])} – ${fmt(edges[i + 1])}: ${count}`)),
    );
  });
  const base = pad.top + plotH;
  // Bins of whole-number scores (edges at n ± 0.5) are labelled by their values.
  const whole = edges.every((e) => Math.abs(e - Math.trunc(e)) === 0.5);
  svg.appendChild(h("line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: base, y2: base }));
  if (whole) {  // each value under its bar
    counts.forEach((_, i) => {
      svg.appendChild(h("text", { x: pad.left + (i + 0.5) * barW, y: height - 6, "text-anchor": "middle" }, fmt(edges[i] + 0.5, 0)));
    });
  } else {
    svg.appendChild(h("text", { x: pad.left, y: height - 6, "text-anchor": "start" }, fmt(edges[0], 2)));
    svg.appendChild(h("text", { x: width - pad.right, y: height - 6, "text-anchor": "end" }, fmt(edges[edges.length - 1], 2)));
  }
  svg.appendChild(h("text", { x: pad.left - 4, y: pad.top + 8, "text-anchor": "end" }, String(top)));
  svg.appendChild(h("text", { x: pad.left - 4, y: base, "text-anchor": "end" }, "0"));
  return svg;
}
