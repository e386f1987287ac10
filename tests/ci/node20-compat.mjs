// node20-compat.mjs - loaded with `node --import` before gitlab-ci-local,
// whose bundle calls ES2025 Set methods (Set.prototype.union, ...) that
// Node 22 has and Debian 12's Node 20 lacks. Defines only missing methods,
// with the spec's semantics for Set arguments (ECMA-262 2025, 24.2.4).
const def = (name, fn) => {
  if (typeof Set.prototype[name] !== 'function') {
    Object.defineProperty(Set.prototype, name, { value: fn, writable: true, configurable: true });
  }
};
const keys = (o) => (o instanceof Set || o instanceof Map ? [...o.keys()] : [...o.keys()]);
def('union', function (o) { return new Set([...this, ...keys(o)]); });
def('intersection', function (o) { return new Set([...this].filter((x) => o.has(x))); });
def('difference', function (o) { return new Set([...this].filter((x) => !o.has(x))); });
def('symmetricDifference', function (o) {
  const r = new Set(this);
  for (const x of keys(o)) { if (this.has(x)) r.delete(x); else r.add(x); }
  return r;
});
def('isSubsetOf', function (o) { return [...this].every((x) => o.has(x)); });
def('isSupersetOf', function (o) { return keys(o).every((x) => this.has(x)); });
def('isDisjointFrom', function (o) { return [...this].every((x) => !o.has(x)); });
