package corpus

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
)

// plantPrefix starts every planted term. The vocabulary and every random
// string the generator writes are built so that this sequence (in any letter
// case) never occurs outside a planted term.
const plantPrefix = "zqx"

// stopWords are the most frequent words of the prose, in rank order.
var stopWords = sync.OnceValue(func() []string {
	return strings.Fields(`the to a of and in is it that for this
with on be not we I you as are at or if can by from but so an was have
should will then there now it's don't let's need just use also when which`)
})

var englishWords = sync.OnceValue(func() []string {
	return strings.Fields(`about above accept access account across
action actually add added after again against agent all allow already
always answer any anything appear apply approach around ask assume attempt
available avoid back bad because before begin behaviour behind below best
better between big both break bring broken bug build call called case cause
change changed check clean clear close code come comment common complete
confirm consider contain context continue correct could create current
data debug default define delete depend describe detail different directly
does done down during each early easy edge either else empty end enough
ensure entire error even every exact example exist expect explain fail
failing false fast feature few file final find first fix flaky follow
force found full function further get give given go good great guess
handle happen hard help here hidden high hold how idea ignore important
include index inside instead issue item keep kind know large last later
leave left less level like likely line list little local long look loop
lose low main make many match maybe mean might minimal missing mode more
most move much must name narrow near never new next nice note nothing
notice number obvious off often old once one only open option order other
output over own part pass path pattern perhaps place plan point possible
prefer probably problem proper pull push put quick quite rather read
ready real reason recent reduce refactor remove repeat replace report
request require rerun result return review right root rule run safe same
save say second see seem send separate set short show side simple since
single size skip slow small some something soon source split start state
step still stop strange structure suggest sure take task test than their
them these thing think those though through time together top touch track
true try turn under understand unit until update usage used useful usual
value verify very via wait want warning way well what where whether while
whole why wide without work worry would wrong yet`)
})

var codeParts = sync.OnceValue(func() []string {
	return strings.Fields(`config parse handler request response cache
index token session buffer writer reader client server err retry timeout
queue worker job batch shard segment digest query filter score rank path
file dir entry record node tree branch leaf parent child lineage hash sum
count limit offset cursor page user account order invoice payment price
cart item product event stream channel mutex lock state status result
value key map list set slice array byte str num time date duration ctx
opts cfg db tx conn pool http json yaml csv api rpc schema field column
row table view model layer tensor weight grad loss epoch step sample
dataset loader metric log trace span id uuid name label tag version build
mock stub fixture assert expect render component props hook route router
middleware auth jwt login scope role permission policy rule quota rate
bucket region zone host port addr url header body payload encode decode
marshal unmarshal serialize flush sync async spawn fork join merge split
diff patch commit deploy release rollback migrate fetch load save store
get put delete update insert select scan walk visit emit handle process
run start stop init close open read write new make validate normalize
tokenize resolve dispatch render compile link format print debug info warn
fatal panic recover defer alloc free grow shrink resize compact evict
expire refresh reload watch notify subscribe publish ack nack poll tick
clock timer deadline cancel done ready pending active idle busy dirty
stale fresh valid invalid raw safe unsafe max min avg total delta prev
next first last head tail top bottom left right inner outer local remote
global shared private public internal external input output src dst tmp
old base root`)
})

// nonASCIIWords give the prose and code some multi-byte UTF-8: Latin with
// diacritics, German ß, Greek, Cyrillic, CJK, Hangul and a few emoji.
var nonASCIIWords = sync.OnceValue(func() []string {
	return strings.Fields(`café naïve résumé façade señor jalapeño
Straße Größe Übersicht Fehler Schlüssel Prüfung Ärger größer über müssen
λόγος δεδομένα συνάρτηση Ωmega αλγόριθμος σφάλμα κλειδί μήνυμα
ошибка данные файл Привет проверка 数据 配置 测试 错误 用户 文件 服务器
索引 缓存 テスト 設定 エラー 検索 データ 데이터 설정 오류 naïveté déjà
crème brûlée Zürich São Paulo Kraków Ελλάδα 東京 北京 서울`)
})

var emojiWords = sync.OnceValue(func() []string { return strings.Fields(`🚀 ✅ 🔥 🐛 📦 ✨ 🎉 👍 🤔 💡 🧪 🔧`) })

// syllables build the pseudo-words of the long tail.
var syllables = sync.OnceValue(func() []string {
	return strings.Fields(`ba be bi bo bu ca ce co cu da de di do du fa fe
fi fo ga ge go gu ha he hi ho ka ke ki ko ku la le li lo lu ma me mi mo mu
na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu
va ve vi vo wa we wi yo za ze zo tra tre tri pro pla ple bra bre cla cle
dra dri fla fle fra gra gre kra kri sta ste sti str ver ter per ser mer
lan len lin lon man men min mon nan nen tan ten tin ton ran ren rin ron
ent ant ist ast est ost ix ex ox ux ar er ir or ur al el il ol ul quo qua`)
})

// zipf samples words with probability proportional to 1/(rank+q)^s, in
// constant time with Vose's alias method.
type zipf struct {
	words []string
	prob  []uint32 // threshold scaled to 2^32
	alias []uint32
}

func newZipf(words []string, s, q float64) *zipf {
	n := len(words)
	w := make([]float64, n)
	sum := 0.0
	for i := range w {
		w[i] = 1 / math.Pow(float64(i)+q, s)
		sum += w[i]
	}
	z := &zipf{words: words, prob: make([]uint32, n), alias: make([]uint32, n)}
	scaled := make([]float64, n)
	var small, large []int
	for i := range w {
		scaled[i] = w[i] / sum * float64(n)
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		large = large[:len(large)-1]
		z.prob[l] = uint32(scaled[l] * (1 << 32))
		z.alias[l] = uint32(g)
		scaled[g] = scaled[g] + scaled[l] - 1
		if scaled[g] < 1 {
			small = append(small, g)
		} else {
			large = append(large, g)
		}
	}
	for _, i := range append(small, large...) {
		z.prob[i] = math.MaxUint32
		z.alias[i] = uint32(i)
	}
	return z
}

func (z *zipf) sample(r *rand.Rand) string { return z.words[z.index(r)] }

// index samples the rank of a word.
func (z *zipf) index(r *rand.Rand) int {
	u := r.Uint64()
	i := (u >> 32) * uint64(len(z.words)) >> 32
	if uint32(u) < z.prob[i] {
		return int(i)
	}
	return int(z.alias[i])
}

// vocab is the shared, read-only word material of one corpus. It is built
// from the corpus seed alone.
type vocab struct {
	prose  *zipf // all words: prose, comments, messages
	idents *zipf // code identifiers: snake_case, camelCase, PascalCase, parts
	// snakes holds snake(idents.words[i]), for Python and Rust code.
	snakes []string
	types  *zipf // PascalCase type names
}

func newVocab(seed int64) *vocab {
	r := rand.New(rand.NewPCG(uint64(seed), 0x766f636162)) // "vocab"
	seen := map[string]bool{}
	clean := func(w string) bool {
		if w == "" || seen[w] || strings.Contains(strings.ToLower(w), plantPrefix) {
			return false
		}
		seen[w] = true
		return true
	}
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	title := func(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

	// Identifiers: parts, snake_case, camelCase, PascalCase, CONSTANTS.
	var parts, idents, types []string
	for _, p := range codeParts() {
		if clean(p) {
			parts = append(parts, p)
		}
	}
	idents = append(idents, parts...)
	for len(idents) < 9000 {
		n := 2 + r.IntN(2)
		parts := make([]string, n)
		for i := range parts {
			if r.IntN(4) == 0 {
				parts[i] = pick(englishWords())
			} else {
				parts[i] = pick(codeParts())
			}
		}
		var w string
		switch r.IntN(10) {
		case 0, 1, 2, 3:
			w = strings.Join(parts, "_")
		case 4, 5, 6, 7:
			w = parts[0]
			for _, p := range parts[1:] {
				w += title(p)
			}
		case 8:
			for _, p := range parts {
				w += title(p)
			}
		default:
			w = strings.ToUpper(strings.Join(parts, "_"))
		}
		if clean(w) {
			idents = append(idents, w)
		}
	}
	for len(types) < 1500 {
		w := title(pick(codeParts())) + title(pick(codeParts()))
		if r.IntN(3) == 0 {
			w = title(pick(codeParts()))
		}
		if clean("type:" + w) {
			types = append(types, w)
		}
	}
	r.Shuffle(len(idents), func(i, j int) { idents[i], idents[j] = idents[j], idents[i] })
	isPart := map[string]bool{}
	for _, p := range parts {
		isPart[p] = true
	}

	// Prose ranks: stop words, English words, code parts, then identifiers
	// and pseudo-words mixed as the long tail. Non-ASCII words and emoji
	// are scattered over ranks 150..4150, so they appear now and then.
	var prose []string
	add := func(ws []string) {
		start := len(prose)
		for _, w := range ws {
			if clean(w) {
				prose = append(prose, w)
			}
		}
		tier := prose[start:]
		r.Shuffle(len(tier), func(i, j int) { tier[i], tier[j] = tier[j], tier[i] })
	}
	add(stopWords())
	add(englishWords())
	prose = append(prose, parts...) // unique, and no English word repeats them
	var tail []string
	for _, w := range idents {
		if len(tail) < 3000 && !isPart[w] {
			tail = append(tail, w)
		}
	}
	for len(tail) < 24000 {
		var sb strings.Builder
		for range 2 + r.IntN(3) {
			sb.WriteString(pick(syllables()))
		}
		if w := sb.String(); clean(w) {
			tail = append(tail, w)
		}
	}
	r.Shuffle(len(tail), func(i, j int) { tail[i], tail[j] = tail[j], tail[i] })
	prose = append(prose, tail...)
	for _, w := range append(append([]string(nil), nonASCIIWords()...), emojiWords()...) {
		if !clean(w) {
			continue
		}
		at := 150 + r.IntN(4000)
		prose = append(prose[:at], append([]string{w}, prose[at:]...)...)
	}
	v := &vocab{
		prose:  newZipf(prose, 1.15, 2.5),
		idents: newZipf(idents, 1.0, 3),
		types:  newZipf(types, 1.0, 2),
	}
	for _, w := range idents {
		v.snakes = append(v.snakes, snake(w))
	}
	return v
}
