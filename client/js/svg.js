// Building SVG in the page: the graphs (ratingGraph.js, evalGraph.js) draw with this.

export const SVG = 'http://www.w3.org/2000/svg';

/**
 * A maker of SVG elements in `doc`: `el(name, attrs, parent, text)` creates `name` with those
 * attributes (and text), appended to `parent` if given.
 */
export function svgMaker(doc) {
  return (name, attrs = {}, parent = null, text = null) => {
    const node = doc.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (text !== null) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  };
}
