import { describe } from 'vitest';
import { expectAnswers } from './answer-cases.js';

// Invented entries of a made-up music, film and football world (title line, then the entry); the
// expected answers are read off them by hand.
const entry = (title: string, body: string) => ({ id: title, text: `${title}\n${body}` });

describe('a thing a name owns, found before the relation asked of it', () => {
  const notes = [
    entry(
      'Gannet Row',
      'Gannet Row is an English indie rock band formed in Lowmarsh in 2003. Their debut album, "Salt and Signal", was released in 2006 by Wickline Records.',
    ),
    entry(
      'Salt and Signal',
      '"Salt and Signal" is the debut studio album by Gannet Row. It was produced by Ada Wren and reached number four on the UK Albums Chart.',
    ),
    entry(
      'Ada Wren',
      'Ada Wren (born 12 March 1970) is a Scottish record producer from Dunmore. She founded the studio Kelp House in 1998.',
    ),
    entry(
      'Wickline Records',
      'Wickline Records is an independent record label based in Bristol. It was founded in 1994 by Harriet Dunne.',
    ),
  ];
  expectAnswers(notes, [
    // "X's debut album" and "the debut album of X" are Salt and Signal, whose producer is asked.
    ["The producer of Gannet Row's first album comes from which town?", 'Dunmore'],
    ['Which town does the producer of the debut album of Gannet Row come from?', 'Dunmore'],
    ["Who founded the label of Gannet Row's debut album?", 'Harriet Dunne'],
    // A title with a lower-case "and" is one name when the context writes it as one.
    ['Who is the producer of Salt and Signal?', 'Ada Wren'],
    // After "did", "found" is to found, not a form of find.
    ['What studio did the producer of Salt and Signal found?', 'Kelp House'],
    // "put out" is released.
    ['Which label put out Salt and Signal?', 'Wickline Records'],
  ]);
});

describe('what a place is known as, and places the question calls by another name', () => {
  const notes = [
    entry(
      'Lowmarsh',
      'Lowmarsh is a market town in Norfolk, England. It has a population of 18,400 and is known locally as "the Reed Town".',
    ),
    entry(
      'Lowmarsh Regatta',
      'The Lowmarsh Regatta is a rowing race held every June. Since 1990 it has been organised by the Eastcliff Rowing Club in Eastcliff, a suburb of Lowmarsh.',
    ),
  ];
  expectAnswers(notes, [
    ["What is Lowmarsh's nickname?", 'Reed Town'],
    // A borough is a place (WordNet), so the place is asked, not the club.
    ['The regatta of Lowmarsh is organised in what borough?', 'Eastcliff'],
  ]);
});

describe('a thing a name owns, asked something of itself', () => {
  const notes = [
    entry(
      'Gannet Row',
      'Gannet Row is an English indie rock band formed in Lowmarsh in 2003. Their debut album, "Salt and Signal", was released in 2006 by Wickline Records. Their second album came out in 2009.',
    ),
    entry(
      'Salt and Signal',
      '"Salt and Signal" is a studio album by an English band. It was recorded at Kelp House in Dunmore and produced by Ada Wren.',
    ),
    entry('Kelp House', 'Kelp House is a recording studio in Dunmore, Scotland, founded in 1998.'),
  ];
  expectAnswers(notes, [
    // The album's own entry does not name the band: the album is found first.
    ['Where was the debut album of Gannet Row recorded?', 'Kelp House'],
    ["In which studio was Gannet Row's debut album recorded?", 'Kelp House'],
    ['Who produced the debut album of Gannet Row?', 'Ada Wren'],
  ]);
});

describe('"whose" asked at the end', () => {
  const notes = [
    entry(
      'Maeve Orrin',
      'Maeve Orrin (born 1979) is an Irish actress. She is married to the playwright Niall Breen.',
    ),
    entry(
      'Niall Breen',
      'Niall Breen (born 1972) is an Irish playwright whose plays have been staged at the Abbey Theatre. His first play, "Low Water", premiered in 2001.',
    ),
  ];
  expectAnswers(notes, [
    // The playwright first, then what his first play was called.
    ['Maeve Orrin is married to a playwright whose first play was called what?', 'Low Water'],
  ]);
});

describe('another verb\'s agent, and the verb that ends a question after "did"', () => {
  const notes = [
    entry(
      'Brisk Harbour',
      'Brisk Harbour is a 1998 adventure video game developed by Coldwater Studio and published by Nettle Interactive. Its music was composed by Yuri Salk.',
    ),
    entry('Coldwater Studio', 'Coldwater Studio is a video game developer based in Tampere, Finland.'),
    entry('Nettle Interactive', 'Nettle Interactive was a video game publisher headquartered in Guildford.'),
    entry('Yuri Salk', 'Yuri Salk (born 1969) is a Finnish composer. He studied at the Sibelius Academy.'),
  ];
  expectAnswers(notes, [
    // "developed by" names the developer, not the publisher asked for.
    ['Which company published Brisk Harbour?', 'Nettle Interactive'],
    ['Brisk Harbour was put out by which publisher?', 'Nettle Interactive'],
    // "study" is the question's verb, not part of the name "Brisk Harbour".
    ['Where did the composer of Brisk Harbour study?', 'Sibelius Academy'],
  ]);
});

describe('a work by its maker, and a verb in its own sense', () => {
  const notes = [
    entry(
      'Copper Sky',
      '"Copper Sky" is a song by Velish singer Mirelle Dagan, released in 2012 by Harrow Sound.',
    ),
    entry(
      'Harrow Sound',
      'Harrow Sound is a record label founded in 1999 in Sarn by the producer Idris Vale.',
    ),
    entry(
      'Orm Bridge',
      'The Orm Bridge crosses the River Anst at Portholme. It was begun in 1820 and opened in 1826.',
    ),
  ];
  expectAnswers(notes, [
    // "a song by X" names who made it, not who released it.
    ['Which label released Copper Sky?', 'Harrow Sound'],
    ['Who founded the record label that released Copper Sky?', 'Idris Vale'],
    // "begun" may say "opened", but "opened" says it.
    ['When did the Orm Bridge open?', '1826'],
    ['When was the Orm Bridge begun?', '1820'],
  ]);
});

describe('a clause of its own before "and"', () => {
  const notes = [
    entry(
      'Orm Pell',
      'Orm Pell was a Velish officer. He served in Dunmore in 1901 and joined the navy in 1919.',
    ),
  ];
  expectAnswers(notes, [
    // "in 1901 and joined …": the year before "and" is the clause before's.
    ['When did Orm Pell join the navy?', '1919'],
  ]);
});

describe('"the country X is in" without "that"', () => {
  const notes = [
    entry('Kessa', 'Kessa is a coastal town in the Dune Province of Velland, with about 12,000 inhabitants.'),
    entry(
      'Velland',
      'Velland is a country in Northern Europe. Its capital is Sarn, and its currency is the Velish mark. Velland gained independence in 1921.',
    ),
  ];
  expectAnswers(notes, [
    ['What is the capital of the country Kessa is in?', 'Sarn'],
    // After "did", the bare verb after the clause's stranded "in" is the main verb.
    ['When did the country Kessa is in gain independence?', '1921'],
  ]);
});

describe('"one of the founders of X"', () => {
  const notes = [
    entry(
      'Coldwater Studio',
      'Coldwater Studio is a video game developer based in Tampere. It was founded in 1991 by Aino Ketola and Pekka Lind.',
    ),
    entry(
      'Aino Ketola',
      'Aino Ketola (born 1965) is a Finnish game designer. She is the sister of the architect Ilmari Ketola.',
    ),
  ];
  expectAnswers(notes, [['Who is the brother of one of the founders of Coldwater Studio?', 'Ilmari Ketola']]);
});

describe('"the home city of X"', () => {
  const notes = [
    entry('Coldwater Studio', 'Coldwater Studio is a video game developer based in Tampere, Finland.'),
    entry('Tampere', 'Tampere is a city in the Pirkanmaa region of Finland. It lies between two lakes.'),
  ];
  // Where the studio is based, then the region of that city.
  expectAnswers(notes, [['Which region is the home city of Coldwater Studio in?', 'Pirkanmaa']]);
});
