/**
 * A revision as a user or an event may give it: a sha, or a ref name git would accept
 * (git check-ref-format's rules, one level allowed), optionally followed by ~N / ^N ancestry
 * (HEAD~1, main^). Anything else, above all a leading '-' that git would read as an option
 * (--upload-pack=...), is refused before it reaches git.
 */
export function isRevisionName(revision: string): boolean {
  const name = revision.replace(/(?:[~^]\d{0,4})+$/, '');
  if (/^[0-9a-f]{7,64}$/i.test(name)) return true;
  if (
    name.length === 0 ||
    name.length > 255 ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.endsWith('.lock')
  )
    return false;
  // No control characters, space, ~ ^ : ? * [ \\, no '..', no '@{', no '//', no component starting with '.'.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a ref may not hold
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name) || name.includes('..') || name.includes('@{') || name.includes('//') || name === '@')
    return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}
