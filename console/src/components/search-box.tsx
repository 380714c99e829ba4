// The search box in the header: a name, slug or id goes to #/search?q=…; the search page opens the
// resource directly when the text is exactly one resource's id or slug.
import { useState } from 'preact/hooks';
import { navigate } from '../router';

export function SearchBox() {
  const [q, setQ] = useState('');
  return (
    <form
      class="search-box"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        const text = q.trim();
        if (text) navigate(`/search?q=${encodeURIComponent(text)}`);
      }}
    >
      <label class="visually-hidden" for="search-input">
        Search resources by name, slug or id
      </label>
      <input
        id="search-input"
        data-testid="search-input"
        type="search"
        placeholder="Search name, slug or id"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
      />
      <button type="submit" class="btn btn-plain">
        Search
      </button>
    </form>
  );
}
