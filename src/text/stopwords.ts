// The one stop-word list of the codebase: the search index drops these words from queries
// (../search/query.ts) and the answer engines from the terms they match sentences on
// (../answer/text/terms.ts). The usual English IR list, question words, contractions (whole, as the
// answer side reads them, and their pieces, as the index's tokenizer splits them), and words that
// are frequent in questions about news but name no topic ("said", "according", "latest", "week").
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above according after again against all also am an and any are
aren't as at be because been before being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't down during each either ever few for from further had hadn't has hasn't have haven't having he he'd he'll he's her
here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me
more most mustn't my myself no nor not now of off on once only or other ought our ours ourselves out over own same shan't she
she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then there there's these
they they'd they'll they're they've this those through to too under until up very was wasn't we we'd we'll we're we've were
weren't what what's when when's where where's which while who who's whom whose why why's will with won't would wouldn't yet
you you'd you'll you're you've your yours yourself yourselves s t don didn doesn isn wasn weren won wouldn shouldn couldn aren
hasn haven hadn said says say tell told know known much many new news latest recent recently week weeks day days month months
year years today yesterday like get got via per lot really thing things happened happen happening going`.split(/\s+/),
);
