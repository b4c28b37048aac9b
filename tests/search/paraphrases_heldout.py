"""The held-out paraphrase set of the search-by-meaning change: (query, anchor key, category), as in
``paraphrases.py``, each sharing no term with its target and no word one typo from one of its
words (``test_query_sets`` checks both with ``overlap.py``). Mostly music knowledge: artists by
members, songs, city or era; scenes, genre neighbours, occasions; likes, dislikes and rules restated.

Written on 26 November 2026, on branch ``search-sets``, by a helper session of the lead, before the
embedding model and the precision rules change. No query was run through search by meaning and no
MRR of them was computed before they were committed: they are the held-out half, scored once by
the lead after the change (``paraphrases.py`` is the earlier round's set).
"""

from __future__ import annotations

HELDOUT_PARAPHRASES: list[tuple[str, str, str]] = [
    # artists without their name (members, songs, city, era), and their fans' occasions
    ("the band with tuomas on keyboards and a classically trained soprano", "nightwish", "artist"),
    ("wishmaster and ghost love score", "nightwish", "artist"),
    ("swedish group whose lyrics retell famous sieges and soldiers", "sabaton", "artist"),
    ("the primo victoria guys in camo trousers", "sabaton", "artist"),
    ("vince neil and nikki sixx", "motley", "artist"),
    ("dr feelgood and kickstart my heart", "motley", "artist"),
    ("colin blunstone's group, she's not there", "zombies", "artist"),
    ("queen bey's lemonade", "beyonce", "artist"),
    ("jay-z's wife for a gym session", "beyonce", "activity"),
    ("the homogenic singer and the band that sings in hopelandic", "bjork", "artist"),
    ("jónsi bowing his guitar with a cello bow", "bjork", "artist"),
    ("the duo behind eple and poor leno", "royksopp", "artist"),
    ("overkill and bomber by the trio with the warpig mascot", "motorhead", "artist"),
    ("my heart will go on, the singer from quebec", "celine", "artist"),
    ("damiano david's band and their beggin' cover", "maneskin", "artist"),
    ("tobias forge and his nameless ghouls", "ghost", "artist"),
    ("square hammer and mary on a cross", "ghost", "artist"),
    ("wuthering heights and babooshka", "katebush", "artist"),
    ("paco de lucía and camarón de la isla", "flamenco", "artist"),
    ("bts, blackpink and twice routines to rehearse", "kpop", "activity"),
    ("kurt cobain, chris cornell and layne staley", "grunge", "artist"),
    ("pavarotti and maria callas", "opera", "artist"),
    ("the model, computer world and tour de france", "kraftwerk", "artist"),
    ("the düsseldorf quartet with the pocket calculator", "kraftwerk", "artist"),
    ("dick dale's misirlou and the ventures", "surf", "artist"),
    ("mariah carey's all i want and jingle bells", "christmas", "activity"),
    ("monster mash and thriller for trick or treating", "halloween", "activity"),
    # scenes, eras, genre neighbours
    ("gothic grandeur with choirs and a conservatory-trained vocalist", "nightwish", "genre"),
    ("riffs about tank crews, trenches and the somme", "sabaton", "genre"),
    ("poodle-haired hollywood party rockers", "motley", "genre"),
    ("chamber-orchestrated albums from the summer of love", "zombies", "genre"),
    ("frosty sounds from a volcanic north atlantic island", "bjork", "genre"),
    ("melancholy laptop pop from the fjords for the dark months", "royksopp", "mood"),
    ("amphetamine-fuelled british biker metal at full volume", "motorhead", "genre"),
    ("sequined roman rockers in their twenties", "maneskin", "genre"),
    ("satanic pop metal with costumes and a pope", "ghost", "genre"),
    ("the english singer who danced in a red dress on a moor in 1978", "katebush", "artist"),
    ("outrun-style retrowave for a deserted motorway after midnight", "latedrive", "mood"),
    ("sub pop label sound of the early nineties", "grunge", "genre"),
    ("motorik beats from 70s west germany", "kraftwerk", "genre"),
    ("seville handclaps and heel stomping", "flamenco", "genre"),
    ("heave-ho ballads of whalers and deckhands", "sea", "genre"),
    ("nessun dorma, carmen and the magic flute as a starting point", "opera", "genre"),
    ("8-bit nes tunes for the last fight of a level", "videogame", "activity"),
    ("zelda and dark souls scores", "videogame", "genre"),
    # moods and activities, said another way
    ("racing in the car to fast female-fronted bombast, with a quiet interlude halfway", "breathers", "mood"),
    ("lazy downpour morning with a cappuccino and a trio on upright bass", "rainy", "mood"),
    ("cosy stormy weather, latte and quiet swing", "rainy", "mood"),
    ("ideas for when the married couple takes the floor at the reception", "wedding", "activity"),
    ("newlyweds' opening number", "wedding", "activity"),
    ("music to keep my cadence for a 42k race", "marathon", "activity"),
    ("beats per minute matched to my stride for 26.2 miles", "marathon", "activity"),
    ("gentle tunes so my toddler nods off", "lullaby", "activity"),
    ("twinkle twinkle little star for the nursery", "lullaby", "activity"),
    ("santa and sleigh bells on december 24th", "christmas", "activity"),
    ("eerie witchy music for october 31st", "halloween", "mood"),
    ("sunburnt luau with twangy waves", "surf", "mood"),
    ("tibetan om chanting to quiet the mind", "meditation", "activity"),
    ("sound bath with crystal gongs", "meditation", "activity"),
    ("learning the moves from hallyu music videos in the studio", "kpop", "activity"),
    ("vegas residency tearjerkers to belt out at the bar", "celine", "mood"),
    # likes, dislikes, notes and rules, restated
    ("chad kroeger's band is banned", "nickelback", "event"),
    ("spare me the how you remind me group", "nickelback", "event"),
    ("the horn break in the middle eight sent shivers", "saxophone", "event"),
    ("that skirling celtic instrument with the bag grates on me", "bagpipes", "event"),
    ("the parisian bal-musette in three-quarter time was charming", "accordion", "event"),
    ("leave out talk shows and skits between tracks", "podcast", "event"),
    ("no audiobook chatter or radio dialogue", "podcast", "event"),
    ("radio edits with no swearing on the school run", "explicit", "event"),
    ("picked up a fleetwood mac lp at a car boot sale", "vinyl", "event"),
    ("the seventies mix beats the loudness-war redo", "remaster", "event"),
    ("studio takes, not concert bootlegs with people clapping", "live", "event"),
    ("blend each tune into the next gently, the cuts were jarring", "tempo", "event"),
    ("women singing lead, and a lengthy opening before the vocals come in", "profile:notes", "profile"),
    ("the heavy styles i keep coming back to, orchestral and tuneful", "profile:core_genres", "profile"),
    ("dragon-slaying galloping headbanging is my staple", "profile:core_genres", "profile"),
    ("don't let one musician dominate; no skrillex-style drops", "profile:avoid", "profile"),
    ("songs sung in suomi, svenska or nihongo are fine", "profile:languages", "profile"),
    ("cap of three songs by any one act, an hour and a half to three hours long", "profile:playlist_rules", "profile"),
]
