/**
 * What the inbox page and the run page both need in the browser, as source text: the request
 * headers (JSON, and the bearer token the page keeps in sessionStorage under `TOKEN_KEY`) and
 * `el`, which builds elements with data put in as text, never as HTML. Served by servers/http only.
 */
export const PAGE_DOM_SCRIPT = `
function headers(json) {
  var h = {};
  if (json) h["content-type"] = "application/json";
  var token = sessionStorage.getItem(TOKEN_KEY);
  if (token) h.authorization = "Bearer " + token;
  return h;
}

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) {
    if (k === "text") node.textContent = attrs[k];
    else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), attrs[k]);
    else node.setAttribute(k, attrs[k]);
  });
  (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return node;
}
`;
