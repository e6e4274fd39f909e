/**
 * Word lists the heuristics use to type proper-noun spans and to read questions, and the nouns too
 * generic to be a concept or a keyword. Hand-written for this package; small on purpose (cue words,
 * not a full gazetteer).
 */

const words = (list: string): Set<string> => new Set(list.trim().split(/\s*\|\s*/));

/** Head words that make a capitalized span an organization ("Pasteur Institute", "University of Paris"). */
export const ORGANIZATION_WORDS = words(`
  university | college | institute | institution | school | academy | laboratory | laboratories | lab | labs |
  company | corporation | corp | corp. | inc | inc. | ltd | ltd. | llc | plc | co. | group | holdings | bank |
  association | society | foundation | trust | council | committee | commission | agency | ministry |
  department | office | bureau | board | authority | administration | service | services | party | union |
  league | federation | club | team | band | orchestra | choir | ensemble | museum | library | gallery |
  hospital | clinic | church | press | times | post | journal | magazine | news | network | studios | studio |
  records | pictures | films | entertainment | airlines | airways | motors | systems | technologies |
  industries | partners | brothers | court | parliament | senate | congress | assembly | army | navy |
  corps | police | guard | fund | center | centre | observatory | conservatory | seminary | polytechnic |
  organization | organisation | commonwealth | shipyard | shipyards | brewery | distillery | guild
`);

/**
 * What a company name's last word says it is ("Gullwing Records" is a record label, "Tern Press" a
 * publisher), for a question asking "which label" or "what publisher".
 */
export const NAME_HEAD_KINDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['records', ['label', 'company']],
  ['recordings', ['label', 'company']],
  ['press', ['publisher', 'company']],
  ['books', ['publisher', 'company']],
  ['publishing', ['publisher', 'company']],
  ['publishers', ['publisher', 'company']],
  ['pictures', ['studio', 'company']],
  ['films', ['studio', 'company']],
  ['studios', ['studio', 'company']],
  ['airlines', ['airline', 'company']],
  ['airways', ['airline', 'company']],
]);

/** Head words that make a capitalized span a place ("Hudson River", "Republic of Ireland"). */
export const GEO_WORDS = words(`
  city | town | village | county | province | prefecture | district | region | state | republic | kingdom |
  empire | river | lake | mountain | mountains | mount | mt. | hill | hills | valley | island | islands | isle |
  bay | gulf | sea | ocean | strait | canal | peninsula | desert | forest | park | street | st. | avenue |
  road | boulevard | square | bridge | tower | castle | palace | cathedral | temple | harbor | harbour | port |
  coast | falls | canyon | plain | plains | basin | archipelago | territory | oblast | borough | parish |
  township | municipality | airport | station | stadium | arena | statue
`);

/** Head words that make a capitalized span an event ("World War II", "Battle of Waterloo"). */
export const EVENT_WORDS = words(`
  war | battle | revolution | rebellion | uprising | siege | massacre | crisis | olympics | championship |
  championships | cup | tournament | festival | conference | summit | election | elections | referendum |
  expo | exhibition | treaty | prize | award | awards | medal | trophy | marathon | series | games | coup |
  pandemic | epidemic | earthquake | hurricane
`);

/** Titles and honorifics before a person's name ("Dr. Anna Smith", "President Lincoln"). */
export const PERSON_TITLES = words(`
  mr | mr. | mrs | mrs. | ms | ms. | miss | dr | dr. | prof | prof. | professor | sir | dame | lady | lord |
  king | queen | prince | princess | duke | duchess | earl | countess | baron | emperor | empress | pope |
  president | senator | governor | mayor | judge | colonel | captain | capt. | lieutenant | sergeant |
  admiral | bishop | archbishop | cardinal | rev | rev. | reverend | rabbi | imam | sheikh
`);

/** Words after a name that suggest a person ("Varga said", "Keller married"). */
export const PERSON_VERBS = words(`
  said | says | told | asked | married | marries | born | died | dies | wrote | writes | studied | studies |
  met | meets | believed | believes | thinks | thought | felt | feels | recalled | recalls | admitted |
  explained | argued | claimed | replied | smiled | laughed | graduated | retired | resigned | starred |
  sang | directed | painted | composed | divorced | whose | himself | herself
`);

/** Prepositions after which a bare proper noun is usually a place ("born in Budapest"). */
export const LOCATIVE_PREPOSITIONS = words('in | from | near | outside | across | throughout');

/** Lower-case words that join two capitalized parts of one name after a cue word ("University of Paris"). */
export const NAME_CONNECTORS = words('of | for | upon | on | &');

/** Role acronyms and words stripped from the edges of a name ("CEO Tim Cook"). */
export const ROLE_WORDS = words(
  'ceo | cfo | cto | coo | vp | md | phd | ph.d. | mp | mba | chairman | chairwoman',
);

/** Capitalized words that are not an entity when they stand alone (months, weekdays, nationalities). */
export const NOT_ENTITIES = words(`
  ceo | cfo | cto | coo | vp | md | phd | ph.d. | ba | bsc | msc | mba | tv | dvd | cd | pm | am | a.m. | p.m. |
  ad | bc | i | ok | mr | mrs | ms | dr | prof | monday | tuesday | wednesday | thursday | friday | saturday |
  sunday | january | february | march | april | may | june | july | august | september | october |
  november | december | god | internet | web | english | french | german | spanish | italian | chinese |
  japanese | russian | american | british | european | african | asian | christian | muslim | jewish |
  catholic | protestant | the | a | an | this | that | these | those | it | he | she | they | we | you |
  danish | swedish | norwegian | dutch | polish | irish | scottish | welsh | greek | turkish | arab | arabic |
  persian | indian | pakistani | korean | vietnamese | thai | mexican | canadian | australian | brazilian |
  argentine | egyptian | israeli | soviet | roman | latin | hebrew | hindu | buddhist | hungarian |
  austrian | swiss | belgian | portuguese | czech | finnish | ukrainian | serbian | croatian | romanian |
  bulgarian | nigerian | kenyan | cuban | filipino | indonesian | malaysian | iranian | iraqi | syrian |
  african-american | latino | hispanic | scandinavian | anglo | celtic | islamic
`);

/** Role nouns dropped from the end of a name ("United States Representative" → "United States"). */
export const TRAILING_ROLES = words(`
  representative | senator | congressman | congresswoman | ambassador | secretary | minister | president |
  governor | mayor | chancellor | premier | judge | envoy | consul
`);

/** Lower-case particles inside personal names ("Leonardo da Vinci", "Ludwig van Beethoven"). */
export const NAME_PARTICLES = words(
  'de | da | del | della | di | du | des | der | den | van | von | la | le | y | bin | ibn | al',
);

/** Roman numerals that continue a name ("World War II", "Henry VIII"). */
export const ROMAN_NUMERAL = /^(?:[IVX]{1,5}|XX?[IVX]{0,4})$/;

/**
 * Countries, continents, US states and a few large cities: a bare proper noun equal to one of these
 * is typed `geo`. Lower-case.
 */
export const PLACES = words(`
  africa | asia | europe | north america | south america | antarctica | australia | oceania | america |
  afghanistan | albania | algeria | andorra | angola | argentina | armenia | austria | azerbaijan | bahamas |
  bahrain | bangladesh | barbados | belarus | belgium | belize | benin | bhutan | bolivia | bosnia | botswana |
  brazil | brunei | bulgaria | burkina faso | burundi | cambodia | cameroon | canada | chad | chile | china |
  colombia | congo | costa rica | croatia | cuba | cyprus | czech republic | czechia | denmark | djibouti |
  dominica | ecuador | egypt | el salvador | england | eritrea | estonia | eswatini | ethiopia | fiji | finland |
  france | gabon | gambia | georgia | germany | ghana | greece | grenada | guatemala | guinea | guyana | haiti |
  honduras | hungary | iceland | india | indonesia | iran | iraq | ireland | israel | italy | jamaica | japan |
  jordan | kazakhstan | kenya | kiribati | korea | north korea | south korea | kosovo | kuwait | kyrgyzstan |
  laos | latvia | lebanon | lesotho | liberia | libya | liechtenstein | lithuania | luxembourg | madagascar |
  malawi | malaysia | maldives | mali | malta | mauritania | mauritius | mexico | moldova | monaco | mongolia |
  montenegro | morocco | mozambique | myanmar | burma | namibia | nauru | nepal | netherlands | holland |
  new zealand | nicaragua | niger | nigeria | norway | oman | pakistan | palau | palestine | panama |
  paraguay | peru | philippines | poland | portugal | qatar | romania | russia | rwanda | samoa | san marino |
  saudi arabia | scotland | senegal | serbia | seychelles | sierra leone | singapore | slovakia | slovenia |
  somalia | south africa | spain | sri lanka | sudan | south sudan | suriname | sweden | switzerland | syria |
  taiwan | tajikistan | tanzania | thailand | togo | tonga | tunisia | turkey | turkmenistan | tuvalu |
  uganda | ukraine | united arab emirates | united kingdom | uk | u.k. | united states | usa | u.s. | u.s.a. |
  us | uruguay | uzbekistan | vanuatu | vatican | venezuela | vietnam | wales | yemen | zambia | zimbabwe |
  soviet union | ussr | yugoslavia | prussia | persia | ottoman empire | byzantium | alabama | alaska |
  arizona | arkansas | california | colorado | connecticut | delaware | florida | hawaii | idaho | illinois |
  indiana | iowa | kansas | kentucky | louisiana | maine | maryland | massachusetts | michigan | minnesota |
  mississippi | missouri | montana | nebraska | nevada | new hampshire | new jersey | new mexico | new york |
  north carolina | north dakota | ohio | oklahoma | oregon | pennsylvania | rhode island | south carolina |
  south dakota | tennessee | texas | utah | vermont | virginia | washington | west virginia | wisconsin |
  wyoming | ontario | quebec | british columbia | alberta | bavaria | catalonia | siberia | tibet | sicily |
  london | paris | berlin | rome | madrid | vienna | budapest | prague | warsaw | moscow | athens | lisbon |
  dublin | amsterdam | brussels | geneva | zurich | stockholm | oslo | copenhagen | helsinki | munich |
  hamburg | milan | naples | venice | florence | barcelona | edinburgh | glasgow | manchester | liverpool |
  oxford | cambridge | istanbul | cairo | lagos | nairobi | johannesburg | cape town | tokyo | kyoto | osaka |
  beijing | shanghai | hong kong | seoul | delhi | new delhi | mumbai | bombay | calcutta | kolkata |
  bangkok | jakarta | manila | sydney | melbourne | toronto | montreal | vancouver | chicago | boston |
  los angeles | san francisco | seattle | philadelphia | detroit | houston | dallas | atlanta | miami |
  new orleans | las vegas | baltimore | brooklyn | manhattan | hollywood | mexico city | havana | lima |
  bogota | buenos aires | santiago | rio de janeiro | são paulo | sao paulo | jerusalem | tehran | baghdad |
  kabul | karachi | dubai | riyadh | mecca | singapore | sarajevo | belgrade | bucharest | sofia | kiev | kyiv
`);

/** Subject pronouns resolved to the most recent person ("She studied ..."). */
export const PERSON_PRONOUNS = words('he | she | him');

/** Question words. */
export const WH_WORDS = words('who | whom | whose | what | which | where | when | why | how');

/** Expected answer type for question descriptors ("which city" → geo). */
export const DESCRIPTOR_TYPES: Record<string, string> = Object.fromEntries([
  ...[
    'city',
    'country',
    'state',
    'town',
    'village',
    'place',
    'region',
    'county',
    'nation',
    'continent',
    'river',
    'island',
    'location',
    'capital',
    'province',
    'mountain',
    'lake',
    'area',
    'district',
    'birthplace',
    'hometown',
  ].map((w) => [w, 'geo']),
  ...[
    'university',
    'company',
    'organization',
    'organisation',
    'team',
    'band',
    'club',
    'school',
    'college',
    'institution',
    'party',
    'firm',
    'publisher',
    'label',
    'newspaper',
    'network',
    'airline',
    'agency',
    'group',
    'studio',
    'institute',
  ].map((w) => [w, 'organization']),
  ...[
    'person',
    'man',
    'woman',
    'actor',
    'actress',
    'director',
    'writer',
    'author',
    'singer',
    'player',
    'musician',
    'artist',
    'president',
    'politician',
    'scientist',
    'founder',
    'producer',
    'composer',
    'king',
    'queen',
    'father',
    'mother',
    'son',
    'daughter',
    'wife',
    'husband',
    'spouse',
    'coach',
    'leader',
  ].map((w) => [w, 'person']),
  ...[
    'year',
    'date',
    'decade',
    'century',
    'day',
    'month',
    'time',
    'period',
    'birthday',
    'birthdate',
    'anniversary',
  ].map((w) => [w, 'date']),
  ...[
    'percentage',
    'percent',
    'proportion',
    'number',
    'amount',
    'price',
    'cost',
    'fare',
    'fee',
    'budget',
    'salary',
    'population',
    'membership',
    'attendance',
    'headcount',
    'capacity',
    'count',
    'total',
    'size',
    'length',
    'height',
    'width',
    'depth',
    'weight',
    'distance',
    'duration',
    'age',
  ].map((w) => [w, 'number']),
  ...['war', 'battle', 'event', 'festival', 'election', 'tournament', 'championship', 'award', 'prize'].map(
    (w) => [w, 'event'],
  ),
]);

/** Nouns too generic to be a concept node on their own. */
export const GENERIC_NOUNS = new Set(
  'time year years way people thing things part number kind type lot day days man woman place case fact group area example end member use form point side world life work home hand week month today others one ones something anything everything nothing someone anyone everyone'.split(
    ' ',
  ),
);

/** Nouns too generic to be a keyword of a title or a question. */
export const GENERIC_KEYWORDS = new Set(
  'time year years way people thing things part number kind type lot day days place case fact example end use form name'.split(
    ' ',
  ),
);
