import { describe } from 'vitest';
import { describeAnswers, expectAnswers } from './answer-cases.js';

// Invented entries of a made-up music and film world (title line, then the entry); the expected
// answers are read off them by hand.
const entry = (title: string, body: string) => ({ id: title, text: `${title}\n${body}` });
const music = [
  entry(
    'The Lantern Moths',
    'The Lantern Moths are an English indie rock band formed in Hullbridge in 2003. Their debut album "Glass Orchard" came out in 2005 on Redwake Records.',
  ),
  entry(
    'Glass Orchard',
    'Glass Orchard is the debut studio album by English indie rock band The Lantern Moths. It was produced by Vera Quill.',
  ),
  entry(
    'Redwake Records',
    'Redwake Records is an independent record label founded in 1994 by Mara Ostley. It is headquartered in Leeds, England.',
  ),
  entry(
    'Mara Ostley',
    'Mara Ostley (1948 – 2019) was an English music executive. She wrote for the music magazine "Static Bloom" before founding Redwake Records.',
  ),
  entry(
    'Vera Quill',
    'Vera Quill (born 1970) is a Canadian record producer. She grew up in Halden, Ontario.',
  ),
];

const films = [
  entry(
    'Tin Harbor',
    'Tin Harbor is a 1979 American comedy film directed by Lewis Marrow and written by Dale Okun. It stars Hester Pellow as a young fisherwoman.',
  ),
  entry(
    'Lewis Marrow',
    'Lewis Marrow (October 2, 1938 – May 9, 2011) was an American film director. Born in Tacoma, Washington, he began his career in television.',
  ),
  entry(
    'Dale Okun',
    'Dale Okun (1931 – 2004) was a Canadian screenwriter and novelist from Sudbury, Ontario.',
  ),
  entry(
    'Hester Pellow',
    'Hester Pellow (born 1952) is an American politician and former actress. She served as Mayor of Merrow Falls from 1998 to 2006.',
  ),
  entry(
    'Sable Arena',
    'Sable Arena is an indoor arena in Port Calder, Maine. It opened in 1994 and is the home of the Port Calder Gulls ice hockey team.',
  ),
  entry(
    'Port Calder Gulls',
    'The Port Calder Gulls are a professional ice hockey team. They were founded in 1988 and are coached by Tomas Reyne.',
  ),
  entry(
    'Tomas Reyne',
    'Tomas Reyne (born 12 June 1966) is a Swedish ice hockey coach and former player from Gävle.',
  ),
];

describe('a wh-phrase inside a longer phrase', () => {
  expectAnswers(music, [
    // "of which band" ends the question: what is asked, not a clause about the album.
    // (The answer leaves out a name's leading article, as the reader's names do.)
    ['Vera Quill produced the debut album of which band?', 'Lantern Moths'],
  ]);
  expectAnswers(films, [
    // A participle opens the clause without "who": the man first, then where he was born.
    ['Tin Harbor was directed by a man born in which city?', 'Tacoma'],
    // "starred" read as a noun by the tagger is still the main clause's verb.
    ['Tin Harbor starred an actress who later became mayor of which city?', 'Merrow Falls'],
  ]);
});

describe('names and the kinds next to them', () => {
  expectAnswers(music, [
    // "the music magazine “Static Bloom”": the name, not the kind that introduces it.
    ['What magazine did the founder of Redwake Records write for?', 'Static Bloom'],
  ]);
  expectAnswers(films, [
    // "the Port Calder Gulls ice hockey team": the name before its kind; "based at" is "the home of".
    ['Which team is based at Sable Arena?', 'Port Calder Gulls'],
    // The stranded "from" is the main clause's, not the description's.
    ['What town is the coach of the hockey team based at Sable Arena from?', 'Gävle'],
  ]);
});

describe('addresses: the smaller place first', () => {
  expectAnswers(films, [
    ["Tin Harbor's screenwriter came from which province?", 'Ontario'],
    ['In which city was Lewis Marrow born?', 'Tacoma'],
    // "Which city is the birthplace of …": the description is all that is asked.
    ['Which city is the birthplace of the director of Tin Harbor?', 'Tacoma'],
    ['Which state is Sable Arena in?', 'Maine'],
  ]);
  // A province before its country: the province, not the country, though it is not the smaller place.
  expectAnswers(
    [entry('Orlen Bay', 'Orlen Bay is a fishing town in Nova Scotia, Canada. It was founded in 1761.')],
    [
      ['In which province is Orlen Bay?', 'Nova Scotia'],
      ['Which country is Orlen Bay in?', 'Canada'],
    ],
  );
});

describe('a work "by" its author says who wrote it', () => {
  expectAnswers(
    [
      entry('Grey Lantern', 'Grey Lantern is a 1998 novel by Ossian Vale.'),
      entry('Ossian Vale', 'Ossian Vale (1940 – 2011) was a Scottish poet and playwright.'),
    ],
    [
      ['Was Grey Lantern written by Ossian Vale?', 'yes'],
      ['Was Grey Lantern written by Pella Strand?', 'no'],
    ],
  );
});

describe('countries and provinces', () => {
  const notes = [
    entry(
      'Brinemouth',
      'Brinemouth is a port city in the province of Estmark, Norway. It lies at the mouth of the River Quell.',
    ),
    entry('Norway', 'Norway is a country in northern Europe. It gained independence from Sweden in 1905.'),
    entry('Estmark', 'Estmark is a province in the south of Norway. Its capital is Saltholm.'),
  ];
  expectAnswers(notes, [
    // A country question is answered with a country the tables know, not the river the town lies on;
    // "gain" (read as a noun) is the main verb, not the end of the description.
    ['When did the country where Brinemouth is located gain independence?', '1905'],
    // A province is no country.
    ['In which province is Brinemouth located?', 'Estmark'],
    ['What is the capital of the province where Brinemouth is located?', 'Saltholm'],
  ]);
});

describe('abbreviations written out', () => {
  const notes = [
    entry(
      'NMRA',
      'The NMRA (Northern Maritime Research Association) is a non-profit scientific organization based in Brinemouth.',
    ),
    entry('Gull Survey', 'The survey is run by the Coastal Bird Trust (CBT) each spring.'),
    entry('Brinemouth', 'Brinemouth, nicknamed "the Salt City", is a port city in Norway.'),
  ];
  expectAnswers(notes, [
    ['What does NMRA stand for?', 'Northern Maritime Research Association'],
    ['What is CBT short for?', 'Coastal Bird Trust'],
    ['What is the full name of the NMRA?', 'Northern Maritime Research Association'],
    // Not written out anywhere: unknown, not a guess.
    ['What does NASA stand for?', 'The context does not contain an answer to the question.'],
    // A city is no country.
    ['Which city is nicknamed the Salt City?', 'Brinemouth'],
  ]);
});

describe('a role taken "as" it', () => {
  expectAnswers(
    [
      entry(
        'Cal Brennock',
        'Cal Brennock (born 1981) is an English singer. In 2001 he joined the indie rock band The Lantern Moths as lead vocalist.',
      ),
      entry('The Lantern Moths', 'The Lantern Moths are an English indie rock band from Hullbridge.'),
    ],
    [
      // The band's own entry does not name its vocalist; the singer's says he joined as one.
      ['The lead vocalist of The Lantern Moths was born in what year?', '1981'],
    ],
  );
});

describe('a birthday is a date', () => {
  expectAnswers(
    [
      entry(
        'Kessler University',
        'Kessler University is a public university in Merrow Falls. Its president since 2015 is Anya Rusk.',
      ),
      entry('Anya Rusk', 'Anya Rusk (born 3 August 1964) is an American chemist and academic administrator.'),
    ],
    [
      // "birthday" asks for a date ("-day" made it read as an agent noun of "bear", a person).
      ['What is the birthday of the president of Kessler University?', '3 August 1964'],
      ["What is Anya Rusk's birthday?", '3 August 1964'],
    ],
  );
});

const coast = [
  entry(
    'Corvin Ashdale',
    'Corvin Ashdale (born 14 March 1961) is a Scottish film director. He directed "The Salt Road" (2003) and "Cold Meridian" (2010). Ashdale was born in Kirkwall.',
  ),
  entry(
    'The Salt Road',
    'The Salt Road is a 2003 drama film directed by Corvin Ashdale. It stars Maren Dulle and Teodor Vash. The film was shot in Iceland.',
  ),
  entry(
    'Cold Meridian',
    'Cold Meridian is a 2010 thriller film directed by Corvin Ashdale and starring Petra Lune.',
  ),
  entry(
    'Maren Dulle',
    'Maren Dulle (born 1970) is a Danish actress. She is married to the composer Ivo Brandt.',
  ),
  entry(
    'Kirkwall',
    'Kirkwall is the largest town of Orkney, an archipelago off the north coast of Scotland.',
  ),
  entry('Brenna Coast', 'Brenna Coast is a coastal region of Norway. Its largest town is Stavholm.'),
  entry('Stavholm', 'Stavholm is a town in Norway with a population of 12,400.'),
];

describeAnswers('what a name is called, and what its item says of it', coast, [
  // "Cold Meridian is a 2010 thriller film": the film asked is the name, not "thriller film".
  ['Which film by Corvin Ashdale starred Petra Lune?', 'Cold Meridian'],
  // "Its largest town" in the item about Brenna Coast; Orkney's largest town is another's, and
  // Stavholm is what the context calls a town.
  ['What is the largest town of Brenna Coast?', 'Stavholm'],
  // "the largest town of Brenna Coast" inside a longer question is found first.
  ['What is the population of the largest town of Brenna Coast?', '12,400'],
  // A film "shot" somewhere was filmed there.
  ['Where was The Salt Road shot?', 'Iceland'],
  ['Where was The Salt Road filmed?', 'Iceland'],
]);

describeAnswers('a sentence set apart that names the one the question asks about', coast, [
  ['Maren Dulle starred in The Salt Road; who is she married to?', 'Ivo Brandt'],
  ['Corvin Ashdale directed Cold Meridian. Where was he born?', 'Kirkwall'],
]);

const ostland = [
  entry('Ostland', 'Ostland is a country in northern Europe. Its capital is Veldra.'),
  entry(
    'Veldra',
    'Veldra is the capital and largest city of Ostland. The river Amsel flows through the city.',
  ),
  entry('Pellin', 'Pellin is a town in Ostland, in the county of Harrowmere. It was founded in 1204.'),
  entry('Ilse Varga', 'Ilse Varga (1921 – 1999) was an Ostish novelist, born in Pellin. She died in Veldra.'),
  entry('Kestrel Motors', 'Kestrel Motors is an Ostish car maker founded in 1933 by Lars Dahlin.'),
  entry(
    'Lars Dahlin',
    'Lars Dahlin (born 3 June 1890 in Harrowby) was an Ostish engineer. His wife was Greta Dahlin.',
  ),
];

describeAnswers('places that hold places, and places as roles', ostland, [
  // The country where she was born is the one her birthplace, a town, lies in.
  ['What is the capital of the country where Ilse Varga was born?', 'Veldra'],
  // "Her birthplace" is the place after "born in", not the people's adjective before it.
  ["What year was Ilse Varga's birthplace founded?", '1204'],
  // A date may stand between "born" and the place.
  ['What is the birthplace of the founder of Kestrel Motors?', 'Harrowby'],
]);

describeAnswers('a sentence set apart that introduces a place or a person by what it is', ostland, [
  // "is in a country": the country where Pellin is.
  ['Pellin is in a country; what is its capital?', 'Veldra'],
  // "his wife" of "the man who founded …": the wife of that man.
  ['Kestrel Motors was founded by a man; who was his wife?', 'Greta Dahlin'],
]);

const labels = [
  entry(
    'Lantern Works',
    'Lantern Works is a British independent record label founded in 1994 by Sami Oduya. It was acquired by Crestline Music Group in 2011.',
  ),
  entry(
    'Crestline Music Group',
    'Crestline Music Group is an American music company founded in 1979 and headquartered in Nashville.',
  ),
  entry(
    'The Salt Road',
    'The Salt Road is a 2003 drama film directed by Corvin Ashdale. It premiered at the Harwick Film Festival.',
  ),
  entry(
    'Harwick Film Festival',
    'The Harwick Film Festival is an annual film festival held in Glasgow since 1987.',
  ),
  entry(
    'Harbour Nights',
    'Harbour Nights is a Danish crime drama television series that aired on DR1 from 2009 to 2014. It was created by Jens Voller.',
  ),
];

describe('a participle clause asked at the end, and relations said in other words', () => {
  expectAnswers(labels, [
    // "held" is a participle too, though it does not end in -ed.
    ['The Salt Road premiered at a festival held in which city?', 'Glasgow'],
    // A bare "where" ends the clause: where the company found is based.
    ['Lantern Works was bought by a company based where?', 'Nashville'],
    // "bought" is "acquired", "broadcast" is "aired".
    ['When was the company that bought Lantern Works founded?', '1979'],
    ['Which channel broadcast Harbour Nights?', 'DR1'],
  ]);
  // "her role as Ida Holm": the part she played.
  expectAnswers(
    [
      entry(
        'Maren Dulle',
        'Maren Dulle (born 1970) is a Danish actress best known for her role as Ida Holm in the television series "Harbour Nights".',
      ),
    ],
    [['Which character did Maren Dulle play in Harbour Nights?', 'Ida Holm']],
  );
});

describe('relations people say in other words', () => {
  const notes = [
    entry('Tomas Reyl', 'Tomas Reyl (born 1940) is an Ostish film director. He grew up in Pellin.'),
    entry('Vesta Pictures', 'Vesta Pictures is a film studio in Veldra. Its chief executive is Oona Vale.'),
    entry('Brook College', 'Brook College is a college in Dundee. Its principal is Fiona Marsh.'),
  ];
  expectAnswers(notes, [
    // "raised" is "grew up"; a chief executive or a principal leads.
    ['Where was Tomas Reyl raised?', 'Pellin'],
    ['Who leads Vesta Pictures?', 'Oona Vale'],
    ['Who leads Brook College?', 'Fiona Marsh'],
  ]);
});

describe('events, membership and adherence in other words', () => {
  const notes = [
    entry(
      'Ostland',
      'Ostland is a country in northern Europe. About 60% of its people adhere to the Ostish Church. Ostland is a member of the Northern Council.',
    ),
    entry('Veldra', 'Veldra is the capital of Ostland. The Great Fire of Veldra occurred in 1711.'),
  ];
  expectAnswers(notes, [
    ['When did the Great Fire of Veldra happen?', '1711'],
    ['When did the Great Fire of Veldra take place?', '1711'],
    ['What percentage of people in Ostland follow the Ostish Church?', '60%'],
    ['What organisation does Ostland belong to?', 'Northern Council'],
  ]);
});

describe('names with "of", and a people\'s name before a person noun', () => {
  const notes = [
    entry(
      'Anna Holt',
      'Anna Holt (born 1961) is an Ostish politician who has served as Minister of Culture since 2019.',
    ),
    entry(
      'Jonas Berg',
      'Jonas Berg (born 1992) is an Ostish footballer who plays as a striker for Port Kell Rovers.',
    ),
    entry('Mira Lund', 'Mira Lund is a Velish composer known for the opera "Salt Hymn".'),
  ];
  expectAnswers(notes, [
    // "Minister of Culture" as a whole.
    ['What position does Anna Holt hold?', 'Minister of Culture'],
    // "an Ostish footballer": Ostish is where he is from, not the club.
    ['What team does Jonas Berg play for?', 'Port Kell Rovers'],
    ['What is Mira Lund known for?', 'Salt Hymn'],
  ]);
});
